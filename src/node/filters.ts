import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import type { ChainReader, StoredBlock } from './chain.js'
import type { Events } from './events.js'
import { type IndexedLog, type LogQuery, logMatches, logsOf } from './logIndex.js'

/** A log change: a log of a new block, or of a block that left the chain (`removed`). */
export type LogChange = { log: IndexedLog; removed: boolean }

/**
 * A log change as a filter keeps it until polled: a new block's log is the
 * chain index's own object, so an unpolled filter costs one pointer per log
 * (thousands of forgotten filters each hold every log for 5 minutes: the
 * soak run's memory); a removed one is wrapped.
 */
type StoredLogChange = IndexedLog | { removedLog: IndexedLog }
const toLogChange = (c: StoredLogChange): LogChange =>
  'removedLog' in c ? { log: c.removedLog, removed: true } : { log: c, removed: false }

type Common = { id: Hex; lastPoll: number }

/** An installed filter (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) and what it has collected since its last poll. */
export type InstalledFilter =
  | (Common & {
      kind: 'logs'
      query: LogQuery
      /** Numeric block bounds of the filter; tags (latest, pending) leave a side open, as in geth. */
      from: bigint | undefined
      to: bigint | undefined
      /** The decoded filter as given, for eth_getFilterLogs. */
      criteria: unknown
      changes: StoredLogChange[]
    })
  | (Common & { kind: 'blocks'; changes: Hex[] })
  | (Common & { kind: 'pendingTransactions'; full: boolean; changes: Hex[] })

/** What `save()` returns and `restore()` takes: the filters with their pending changes. */
export type SavedFilters = { filters: InstalledFilter[] }

/** geth's filter timeout: a filter not polled for 5 minutes is uninstalled. */
export const filterTimeoutMs = 5 * 60 * 1000

const copy = (f: InstalledFilter): InstalledFilter => ({ ...f, changes: [...f.changes] }) as InstalledFilter

/**
 * The polling filters of one node. Filters collect changes from node events
 * as they happen (new heads, blocks removed by a reorg or rollback, pool
 * arrivals), so a reorg between two polls shows up as the removed logs
 * (`removed: true`) followed by the logs of the new blocks, in that order.
 * Idle filters expire after 5 minutes of wall time, as geth's do.
 */
export function createFilterStore(args: { events: Events; chain: ChainReader; now?: () => number }) {
  // Read at each call, not captured: a test can move time (vi.setSystemTime) instead of waiting 5 minutes.
  const now = args.now ?? (() => Date.now())
  let filters = new Map<Hex, InstalledFilter>()
  let timer: ReturnType<typeof setInterval> | undefined

  const inRange = (f: { from: bigint | undefined; to: bigint | undefined }, n: bigint) =>
    (f.from === undefined || n >= f.from) && (f.to === undefined || n <= f.to)

  const onBlock = (block: StoredBlock, removed: boolean) => {
    let logs: IndexedLog[] | undefined
    for (const f of filters.values()) {
      if (f.kind === 'blocks') {
        if (!removed) f.changes.push(block.hash)
      } else if (f.kind === 'logs' && inRange(f, block.number)) {
        logs ??= removed ? logsOf(block) : args.chain.logs.ofBlock(block.number)
        for (const log of logs) if (logMatches(f.query, log)) f.changes.push(removed ? { removedLog: log } : log)
      }
    }
  }

  args.events.on('newHead', (block) => onBlock(block, false))
  args.events.on('removedBlocks', (blocks) => {
    for (const block of blocks) onBlock(block, true)
  })
  args.events.on('pendingTx', (hash) => {
    for (const f of filters.values()) if (f.kind === 'pendingTransactions') f.changes.push(hash)
  })

  const sweep = (at = now()) => {
    for (const [id, f] of filters) if (at - f.lastPoll >= filterTimeoutMs) filters.delete(id)
  }

  const install = (f: InstalledFilter) => {
    filters.set(f.id, f)
    if (!timer) {
      timer = setInterval(() => sweep(), 30_000)
      timer.unref?.()
    }
    return f.id
  }
  const newId = () => `0x${randomBytes(16).toString('hex')}` as Hex

  return {
    newLogFilter(query: LogQuery, bounds: { from: bigint | undefined; to: bigint | undefined }, criteria: unknown) {
      return install({ id: newId(), lastPoll: now(), kind: 'logs', query, ...bounds, criteria, changes: [] })
    },
    newBlockFilter() {
      return install({ id: newId(), lastPoll: now(), kind: 'blocks', changes: [] })
    },
    newPendingTransactionFilter(full: boolean) {
      return install({ id: newId(), lastPoll: now(), kind: 'pendingTransactions', full, changes: [] })
    },
    /** The filter, marked as polled; undefined when unknown or expired. */
    get(id: Hex): InstalledFilter | undefined {
      const f = filters.get(id.toLowerCase() as Hex)
      if (!f) return undefined
      if (now() - f.lastPoll >= filterTimeoutMs) {
        filters.delete(f.id)
        return undefined
      }
      f.lastPoll = now()
      return f
    },
    /** Returns and clears what the filter collected since the last poll. */
    takeChanges(id: Hex) {
      const f = this.get(id)
      if (!f) return undefined
      const changes = f.kind === 'logs' ? f.changes.map(toLogChange) : f.changes
      f.changes = []
      return { filter: f, changes } as { filter: InstalledFilter; changes: LogChange[] | Hex[] }
    },
    uninstall: (id: Hex) => filters.delete(id.toLowerCase() as Hex),
    size: () => filters.size,
    /** Uninstalls filters idle for 5 minutes or more (runs every 30 s on its own). */
    sweep,
    /** A copy of every filter and its pending changes (evm_snapshot). */
    save(): SavedFilters {
      return { filters: [...filters.values()].map(copy) }
    },
    /** Puts back what `save()` returned (evm_revert): filters installed since are gone, removed ones return. */
    restore(saved: SavedFilters) {
      filters = new Map(saved.filters.map((f) => [f.id, copy(f)]))
    },
    close() {
      if (timer) clearInterval(timer)
      timer = undefined
    },
  }
}

export type FilterStore = ReturnType<typeof createFilterStore>

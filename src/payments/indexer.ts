import type { Address, Client, Hash, Hex } from 'viem'
import { getBlock, getLogs } from 'viem/actions'
import { tokenAbi } from './abi.js'
import { expireAuthorizations } from './cancel.js'
import { InvalidTransitionError } from './errors.js'
import type { PaymentStore } from './store.js'
import type { PaymentState, TokenLogRow } from './types.js'

/** A token log as a source returns it; `removed: true` retracts a row. */
export type SourceLog = TokenLogRow & { removed?: boolean | undefined }

/** Where the indexer reads the chain; a fake in tests, JSON-RPC otherwise. */
export type LogSource = {
  /** The newest sealed block. */
  getHead(): Promise<{ number: bigint; timestamp: bigint }>
  /** The token's logs in `[fromBlock, toBlock]`, both sealed. */
  getLogs(range: { fromBlock: bigint; toBlock: bigint }): Promise<SourceLog[]>
}

const events = tokenAbi.filter(
  (item) =>
    item.type === 'event' &&
    (item.name === 'Transfer' || item.name === 'AuthorizationUsed' || item.name === 'AuthorizationCanceled'),
)

/**
 * A {@link LogSource} over JSON-RPC: `eth_getBlockByNumber("latest")` and
 * `eth_getLogs` filtered by the token address and the three event topics.
 * Only sealed blocks are read: `captured` means canonical.
 */
export function createRpcLogSource(client: Client, token: Address): LogSource {
  return {
    async getHead() {
      const block = await getBlock(client, { blockTag: 'latest' })
      return { number: block.number, timestamp: block.timestamp }
    },
    async getLogs({ fromBlock, toBlock }) {
      const logs = await getLogs(client, { address: token, events, fromBlock, toBlock, strict: true } as never)
      const rows: SourceLog[] = []
      for (const log of logs as unknown as {
        eventName: TokenLogRow['event']
        args: Record<string, unknown>
        blockHash: Hash | null
        blockNumber: bigint | null
        logIndex: number | null
        transactionHash: Hash | null
        removed: boolean
      }[]) {
        if (!log.blockHash || log.blockNumber === null || log.logIndex === null || !log.transactionHash) continue
        const base = {
          blockHash: log.blockHash,
          blockNumber: log.blockNumber,
          logIndex: log.logIndex,
          transactionHash: log.transactionHash,
          removed: log.removed,
        }
        if (log.eventName === 'Transfer')
          rows.push({
            ...base,
            event: 'Transfer',
            from: log.args.from as Address,
            to: log.args.to as Address,
            value: log.args.value as bigint,
          })
        else
          rows.push({
            ...base,
            event: log.eventName,
            from: log.args.authorizer as Address,
            nonce: log.args.nonce as Hex,
          })
      }
      return rows
    },
  }
}

export declare namespace createTokenIndexer {
  type Options = {
    store: PaymentStore
    /** The token followed; names the cursor. */
    token: Address
    /** A client, or pass `source` (tests). */
    client?: Client | undefined
    source?: LogSource | undefined
    /** First block to scan. @default 0n */
    fromBlock?: bigint | undefined
    /** Blocks per `eth_getLogs` request; at most 2,000 (a limit many providers enforce). @default 2000 */
    chunkSize?: number | undefined
    /** Recent blocks rescanned on every pass, to catch reorgs up to this depth. @default 64 */
    overlap?: number | undefined
    /** Move open records past `validBefore` (chain time) to `expired`. @default true */
    expire?: boolean | undefined
  }
  type Move = { orderId: string; from: PaymentState; to: PaymentState }
  type PassResult = {
    fromBlock: bigint
    toBlock: bigint
    added: number
    removed: number
    moves: Move[]
  }
  type ReturnType = {
    /** One pass: scan from the cursor (minus the overlap) to the head, then reconcile records. */
    poll(): Promise<PassResult>
    /** Applies pushed logs (a subscription), honouring `removed: true`. */
    ingest(logs: readonly SourceLog[]): Promise<Move[]>
  }
}

const keyOf = (row: { blockHash: Hash; logIndex: number }) => `${row.blockHash.toLowerCase()}:${row.logIndex}`
const stripRemoved = ({ removed: _, ...row }: SourceLog): TokenLogRow => row

/**
 * Follows the token's `Transfer`, `AuthorizationUsed` and
 * `AuthorizationCanceled` logs into the store and moves records to match the
 * canonical chain.
 *
 * Every pass rescans the last `overlap` blocks, and rows are keyed by
 * `(blockHash, logIndex)`: a row the chain no longer returns for its block
 * range was reorged out and is deleted, a re-included log comes back under its
 * new block hash, and running a pass twice changes nothing. A record is
 * `captured` while an `AuthorizationUsed` for its nonce is canonical and goes
 * back to `authorized` when a reorg removes it. Reorgs deeper than `overlap`
 * are not seen.
 */
export function createTokenIndexer(options: createTokenIndexer.Options): createTokenIndexer.ReturnType {
  const { store, token } = options
  const source =
    options.source ??
    (options.client
      ? createRpcLogSource(options.client, token)
      : (() => {
          throw new TypeError('createTokenIndexer needs a `client` or a `source`')
        })())
  const chunkSize = BigInt(Math.min(Math.max(options.chunkSize ?? 2000, 1), 2000))
  const overlap = BigInt(Math.max(options.overlap ?? 64, 0))
  const start = options.fromBlock ?? 0n
  const cursorKey = `indexer:${token.toLowerCase()}`

  /** Makes the record owning `nonce` agree with the stored (canonical) rows. */
  async function reconcile(nonce: Hex): Promise<createTokenIndexer.Move | undefined> {
    const record = await store.getByNonce(nonce)
    if (!record) return undefined
    const payer = record.authorization.from.toLowerCase()
    const rows = (await store.logsForNonce(nonce)).filter((r) => r.from.toLowerCase() === payer)
    const used = rows.find((r) => r.event === 'AuthorizationUsed')
    const canceled = rows.find((r) => r.event === 'AuthorizationCanceled')
    const from = record.state
    let to: PaymentState | undefined
    let details = {}
    if (used) {
      if (record.state !== 'captured' || record.blockHash !== used.blockHash) {
        to = 'captured'
        details = { transactionHash: used.transactionHash, blockHash: used.blockHash, blockNumber: used.blockNumber }
      }
    } else if (canceled) {
      if (record.state !== 'canceled' || record.blockHash !== canceled.blockHash) {
        to = 'canceled'
        details = { transactionHash: canceled.transactionHash, blockHash: canceled.blockHash, blockNumber: canceled.blockNumber }
      }
    } else if (record.state === 'captured' || (record.state === 'canceled' && record.blockHash)) {
      // The event that closed this record is gone (reorg): it is open again.
      // A cancel recorded from a receipt alone (no block hash yet) is left as is.
      to = 'authorized'
      details = { reason: 'reorg' }
    }
    if (!to) return undefined
    try {
      await store.transition(record.orderId, to, details)
    } catch (error) {
      if (error instanceof InvalidTransitionError) return undefined
      throw error
    }
    return { orderId: record.orderId, from, to }
  }

  async function reconcileAll(nonces: Set<string>) {
    const moves: createTokenIndexer.Move[] = []
    for (const nonce of nonces) {
      const move = await reconcile(nonce as Hex)
      if (move) moves.push(move)
    }
    return moves
  }

  const authorizationNonce = (row: TokenLogRow) => (row.event === 'Transfer' ? undefined : row.nonce?.toLowerCase())

  return {
    async poll() {
      const head = await source.getHead()
      const cursor = await store.getCursor(cursorKey)
      const touched = new Set<string>()
      let added = 0
      let removed = 0
      const touch = (row: TokenLogRow) => {
        const nonce = authorizationNonce(row)
        if (nonce) touched.add(nonce)
      }

      // The chain got shorter than what we indexed: whatever sat above the
      // new head is no longer canonical.
      if (cursor !== undefined && cursor > head.number) {
        const orphans = await store.logsBetween(head.number + 1n, cursor)
        await store.deleteLogs(orphans)
        orphans.forEach(touch)
        removed += orphans.length
      }

      const resume = cursor === undefined ? start : (cursor < head.number ? cursor : head.number) + 1n - overlap
      const fromBlock = resume > start ? resume : start
      for (let chunkStart = fromBlock; chunkStart <= head.number; chunkStart += chunkSize) {
        const chunkEnd = chunkStart + chunkSize - 1n < head.number ? chunkStart + chunkSize - 1n : head.number
        const logs = await source.getLogs({ fromBlock: chunkStart, toBlock: chunkEnd })
        const live = logs.filter((l) => !l.removed).map(stripRemoved)
        const retracted = logs.filter((l) => l.removed).map(stripRemoved)
        const liveKeys = new Set(live.map(keyOf))
        const stored = await store.logsBetween(chunkStart, chunkEnd)
        const storedKeys = new Set(stored.map(keyOf))
        // A stored row the chain no longer returns for its range was reorged out.
        const stale = [...stored.filter((r) => !liveKeys.has(keyOf(r))), ...retracted.filter((r) => storedKeys.has(keyOf(r)))]
        await store.deleteLogs(stale)
        await store.putLogs(live)
        stale.forEach(touch)
        const fresh = live.filter((r) => !storedKeys.has(keyOf(r)))
        fresh.forEach(touch)
        added += fresh.length
        removed += stale.length
        await store.setCursor(cursorKey, chunkEnd)
      }
      if (cursor !== undefined && cursor > head.number) await store.setCursor(cursorKey, head.number)

      const moves = await reconcileAll(touched)
      if (options.expire ?? true)
        for (const record of await expireAuthorizations(store, head.timestamp))
          moves.push({ orderId: record.orderId, from: record.history.at(-2)?.state ?? 'authorized', to: 'expired' })
      return { fromBlock, toBlock: head.number, added, removed, moves }
    },

    async ingest(logs) {
      const touched = new Set<string>()
      const gone = logs.filter((l) => l.removed).map(stripRemoved)
      const live = logs.filter((l) => !l.removed).map(stripRemoved)
      await store.deleteLogs(gone)
      await store.putLogs(live)
      for (const row of [...gone, ...live]) {
        const nonce = authorizationNonce(row)
        if (nonce) touched.add(nonce)
      }
      return reconcileAll(touched)
    },
  }
}

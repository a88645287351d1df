import type { Hex } from 'viem'
import { InvalidArgumentError, InvalidInputError } from './errors.js'
import { type IndexedLog, type LogQuery, logMatches } from './logIndex.js'
import type { PreconfSnapshot } from './preconf.js'
import type { Node } from './types.js'
import type { BlockId } from './views.js'

/** An eth_getLogs filter, decoded: a block range (ids as given) or one block hash, and the address/topic query. */
export type LogRequest = LogQuery & {
  from: BlockId | undefined
  to: BlockId | undefined
  blockHash: Hex | undefined
}

/** The pre-confirmed block has no hash yet: its logs carry zeros, as Base's flashblocks do. */
const pendingBlockHash = `0x${'0'.repeat(64)}` as Hex

/**
 * The logs of the pre-confirmed block that match `query` (of the
 * transactions in `only` when given), numbered as they will be once sealed.
 */
export function pendingLogs(snapshot: PreconfSnapshot, query: LogQuery, options: { only?: ReadonlySet<Hex> | undefined } = {}): IndexedLog[] {
  const out: IndexedLog[] = []
  let logIndex = 0
  snapshot.txs.forEach((tx, txIndex) => {
    const first = logIndex
    logIndex += tx.logs.length
    if (options.only && !options.only.has(tx.hash)) return
    tx.logs.forEach((log, i) => {
      if (!logMatches(query, log)) return
      out.push({
        address: log.address.toLowerCase() as Hex,
        topics: log.topics,
        data: log.data,
        blockNumber: snapshot.number,
        blockHash: pendingBlockHash,
        blockTimestamp: snapshot.env.timestamp,
        txHash: tx.hash,
        txIndex,
        logIndex: first + i,
      })
    })
  })
  return out
}

type RangeEnd = { n: bigint; pending: boolean }

/** The range's ends as numbers (`pending` is head + 1); geth's checks: in order, not beyond the head. */
function resolveRange(node: Node, filter: LogRequest) {
  const head = node.chain.height()
  const end = (id: BlockId | undefined): RangeEnd => {
    if (!id) return { n: head, pending: false }
    if ('tag' in id) {
      if (id.tag === 'pending') return { n: head + 1n, pending: true }
      if (id.tag === 'earliest') return { n: 0n, pending: false }
      return { n: node.views.resolve(id).number, pending: false }
    }
    if ('number' in id) return { n: id.number, pending: false }
    return { n: node.views.resolve(id).number, pending: false }
  }
  const from = end(filter.from)
  const to = end(filter.to)
  if (from.n > to.n) throw new InvalidArgumentError('invalid block range params')
  if ((!from.pending && from.n > head) || (!to.pending && to.n > head))
    throw new InvalidArgumentError('block range extends beyond current head block')
  return { from, to, head }
}

/**
 * eth_getLogs over the sealed chain's log index and, when the range ends at
 * `pending`, the pre-confirmed block. The configured limits (`logs`:
 * maxBlockRange, maxResults) refuse a query naming a range to retry with;
 * a single block is always returned whole, as reth does.
 */
export function getLogs(node: Node, filter: LogRequest): IndexedLog[] {
  if (filter.blockHash) {
    const block = node.chain.blockByHash(filter.blockHash)
    if (!block) throw new InvalidInputError('unknown block')
    return node.chain.logs.query(filter, block.number, block.number).logs
  }
  const { from, to, head } = resolveRange(node, filter)
  const { maxBlockRange, maxResults } = node.config.logs
  const out: IndexedLog[] = []
  if (!from.pending) {
    const last = to.pending ? head : to.n
    if (maxBlockRange !== undefined && last - from.n > BigInt(maxBlockRange))
      throw new InvalidArgumentError(`query exceeds max block range ${maxBlockRange}`)
    const limit = maxResults !== undefined && last > from.n ? maxResults : undefined
    const found = node.chain.logs.query(filter, from.n, last, limit)
    if (found.overflowAt !== undefined) {
      const retryTo = found.overflowAt - 1n > from.n ? found.overflowAt - 1n : from.n
      throw new InvalidArgumentError(`query exceeds max results ${maxResults}, retry with the range ${from.n}-${retryTo}`)
    }
    for (const log of found.logs) out.push(log)
  }
  if (to.pending) {
    out.push(...pendingLogs(node.pending(), filter))
    if (maxResults !== undefined && out.length > maxResults && !from.pending)
      throw new InvalidArgumentError(`query exceeds max results ${maxResults}, retry with the range ${from.n}-${head}`)
  }
  return out
}

/** A numeric end of a filter's range; tags leave that side open, as geth's filter system does. */
const bound = (node: Node, id: BlockId | undefined): bigint | undefined => {
  if (!id) return undefined
  if ('number' in id) return id.number
  if ('hash' in id) return node.views.resolve(id).number
  return id.tag === 'earliest' ? 0n : undefined
}

/** Installs a polling log filter (eth_newFilter): a block hash pins both ends, tags leave an end open. */
export function newLogFilter(node: Node, filter: LogRequest): Hex {
  const bounds = filter.blockHash
    ? (() => {
        const n = node.views.resolve({ hash: filter.blockHash }).number
        return { from: n, to: n }
      })()
    : { from: bound(node, filter.from), to: bound(node, filter.to) }
  return node.filters.newLogFilter(filter, bounds, filter)
}

/** Every log a log filter matches now (eth_getFilterLogs); unknown or not a log filter: `filter not found`. */
export function filterLogs(node: Node, id: Hex): IndexedLog[] {
  const filter = node.filters.get(id)
  if (!filter || filter.kind !== 'logs') throw new InvalidInputError('filter not found')
  return getLogs(node, filter.criteria as LogRequest)
}

import type { Hex } from 'viem'
import type { IndexedLog, LogQuery } from '../../node/logIndex.js'
import { logMatches } from '../../node/logIndex.js'
import type { Node } from '../../node/node.js'
import type { PreconfSnapshot } from '../../node/preconf.js'
import type { BlockId } from '../../node/views.js'
import { ArgError, address, blockId, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidInputError, InvalidParamsError } from '../errors.js'
import { q, zeroHash } from '../format.js'

/** A decoded log filter: what to match, and the block range or block hash to look in. */
export type LogFilter = LogQuery & {
  from: BlockId | undefined
  to: BlockId | undefined
  blockHash: Hex | undefined
}

/** Decodes a filter object (eth_getLogs, eth_newFilter, the `logs` subscription), with geth's messages. */
export const logFilter = (value: unknown): LogFilter => {
  if (value === undefined || value === null) value = {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new ArgError('expected a filter object')
  const o = value as Record<string, unknown>
  const addresses =
    o.address == null ? undefined : new Set((Array.isArray(o.address) ? o.address : [o.address]).map((a) => address(a)))
  if (o.topics != null && !Array.isArray(o.topics)) throw new ArgError('topics: expected an array')
  const topics = ((o.topics as unknown[] | undefined) ?? []).map((t) =>
    t == null ? null : new Set((Array.isArray(t) ? t : [t]).map((x) => hash(x))),
  )
  if (topics.length > 4) throw new InvalidParamsError('exceed max topics')
  const blockHash = o.blockHash == null ? undefined : hash(o.blockHash)
  if (blockHash && (o.fromBlock != null || o.toBlock != null))
    throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
  return {
    // An empty address list matches nothing on geth only if given; `[]` here means any, as geth and reth treat it.
    addresses: addresses && addresses.size > 0 ? addresses : undefined,
    topics,
    from: o.fromBlock == null ? undefined : blockId(o.fromBlock),
    to: o.toBlock == null ? undefined : blockId(o.toBlock),
    blockHash,
  }
}

/** The wire shape of a log. */
export type WireLog = {
  address: Hex
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  transactionHash: Hex
  transactionIndex: Hex
  blockHash: Hex
  blockTimestamp: Hex
  logIndex: Hex
  removed: boolean
}

/** A sealed (indexed) log on the wire. */
export function formatIndexedLog(log: IndexedLog, removed = false): WireLog {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: q(log.blockNumber),
    transactionHash: log.txHash,
    transactionIndex: q(log.txIndex),
    blockHash: log.blockHash,
    blockTimestamp: q(log.blockTimestamp),
    logIndex: q(log.logIndex),
    removed,
  }
}

/**
 * The pre-confirmed logs of a snapshot that match `query`, placed as Base
 * serves them: the pending block number, a zero block hash, the block's
 * timestamp. `only` restricts to some transactions (a tick's delta, or the
 * dropped ones); log indexes stay those of the whole pending block.
 */
export function preconfLogs(
  snapshot: PreconfSnapshot,
  query: LogQuery,
  options: { only?: ReadonlySet<Hex>; removed?: boolean } = {},
): WireLog[] {
  const out: WireLog[] = []
  let logIndex = 0
  const number = q(snapshot.number)
  const timestamp = q(snapshot.env.timestamp)
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
        blockNumber: number,
        transactionHash: tx.hash,
        transactionIndex: q(txIndex),
        blockHash: zeroHash,
        blockTimestamp: timestamp,
        logIndex: q(first + i),
        removed: options.removed ?? false,
      })
    })
  })
  return out
}

type RangeEnd = { n: bigint; pending: boolean }

/** Resolves a filter's range with geth's errors (all -32602); a `pending` end means the pre-confirmed block. */
export function resolveRange(node: Node, filter: LogFilter) {
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
  if (from.n > to.n) throw new InvalidParamsError('invalid block range params')
  if ((!from.pending && from.n > head) || (!to.pending && to.n > head))
    throw new InvalidParamsError('block range extends beyond current head block')
  return { from, to, head }
}

/**
 * eth_getLogs: the canonical logs of the range from the index, plus the
 * pre-confirmed logs when the range ends at `pending` (only those when it
 * also starts there). Limits as reth words them, -32602.
 */
export function getLogs(node: Node, filter: LogFilter): WireLog[] {
  if (filter.blockHash) {
    const block = node.chain.blockByHash(filter.blockHash)
    if (!block) throw new InvalidInputError('unknown block')
    return node.chain.logs.query(filter, block.number, block.number).logs.map((log) => formatIndexedLog(log))
  }
  const { from, to, head } = resolveRange(node, filter)
  const { maxBlockRange, maxResults } = node.config.logs
  const out: WireLog[] = []
  if (!from.pending) {
    const last = to.pending ? head : to.n
    if (maxBlockRange !== undefined && last - from.n > BigInt(maxBlockRange))
      throw new InvalidParamsError(`query exceeds max block range ${maxBlockRange}`)
    // reth always returns a whole single block, however many logs it holds.
    const limit = maxResults !== undefined && last > from.n ? maxResults : undefined
    const found = node.chain.logs.query(filter, from.n, last, limit)
    if (found.overflowAt !== undefined) {
      const retryTo = found.overflowAt - 1n > from.n ? found.overflowAt - 1n : from.n
      throw new InvalidParamsError(`query exceeds max results ${maxResults}, retry with the range ${from.n}-${retryTo}`)
    }
    for (const log of found.logs) out.push(formatIndexedLog(log))
  }
  if (to.pending) {
    out.push(...preconfLogs(node.pending(), filter))
    if (maxResults !== undefined && out.length > maxResults && !from.pending)
      throw new InvalidParamsError(`query exceeds max results ${maxResults}, retry with the range ${from.n}-${head}`)
  }
  return out
}

export const logMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getLogs',
    params: [logFilter],
    handler: ({ node }, [filter]) => getLogs(node, filter),
  }),
]

import type { Hex } from 'viem'
import type { IndexedLog, LogQuery } from '../../node/logIndex.js'
import { type LogRequest, pendingLogs } from '../../node/logs.js'
import type { Node } from '../../node/node.js'
import type { PreconfSnapshot } from '../../node/preconf.js'
import { ArgError, address, blockId, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'

/** A decoded log filter: what to match, and the block range or block hash to look in. */
export type LogFilter = LogRequest

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

/** The pre-confirmed block's logs that match `query` (node/logs.ts), in wire form. */
export function preconfLogs(
  snapshot: PreconfSnapshot,
  query: LogQuery,
  options: { only?: ReadonlySet<Hex>; removed?: boolean } = {},
): WireLog[] {
  return pendingLogs(snapshot, query, { only: options.only }).map((log) => formatIndexedLog(log, options.removed ?? false))
}

/** eth_getLogs: the node's query (range checks and limits in node/logs.ts), in wire form. */
export function getLogs(node: Node, filter: LogFilter): WireLog[] {
  return node.getLogs(filter).map((log) => formatIndexedLog(log))
}

export const logMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getLogs',
    params: [logFilter],
    handler: ({ node }, [filter]) => getLogs(node, filter),
  }),
]

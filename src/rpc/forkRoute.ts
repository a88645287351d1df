import type { Fork } from '../node/fork/open.js'
import type { LogRequest } from '../node/logs.js'
import type { Node } from '../node/node.js'
import type { BlockId } from '../node/views.js'
import { logFilter } from './methods/logs.js'

/**
 * On a fork, the requests that are about the upstream's history: blocks at
 * or below the fork block, their transactions, receipts and logs, and state
 * at a block below it. They go to the upstream as they came (wire params,
 * no decoding), and their answers are cached with the fork's reads: what a
 * block at or below the pin holds never changes. Everything else (and every
 * malformed request, which the local method rejects with the right error)
 * stays local.
 *
 * The fork block itself is both: its header, transactions and receipts are
 * the upstream's, while state at it is local (the dev accounts are funded
 * there).
 */

type Routed = { routed: true; result: unknown } | { routed: false }
const local: Routed = { routed: false }

/** State reads and the index of their block parameter. */
const stateMethods: Record<string, number> = {
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_getProof: 2,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
}

/** History by block, and the index of the block parameter. */
const blockMethods: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockByHash: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getBlockTransactionCountByHash: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getTransactionByBlockHashAndIndex: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getUncleCountByBlockHash: 0,
  eth_getBlockReceipts: 0,
  eth_getHeaderByNumber: 0,
  eth_getHeaderByHash: 0,
  // A block below the fork block is replayed by the upstream (its state is there); an upstream without the debug namespace answers with an error naming it.
  debug_traceBlockByNumber: 0,
  debug_traceBlockByHash: 0,
  debug_getRawBlock: 0,
  debug_getRawHeader: 0,
  debug_getRawReceipts: 0,
}

/** Lookups by transaction hash: a hash the local chain and pool do not know is the upstream's (at or below the fork block). */
const txMethods = new Set(['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getRawTransactionByHash', 'debug_traceTransaction', 'debug_getRawTransaction'])

/** Answers that carry no block number of their own (traces, raw bytes): kept when the transaction was found at or below the fork block. */
const unnumbered = new Set(['debug_traceTransaction', 'debug_getRawTransaction'])

/** The block number an upstream answer is about (a block, a transaction, a receipt or a list of them), or -1. */
function numberOf(result: unknown): bigint {
  const item = Array.isArray(result) ? result[0] : result
  if (typeof item !== 'object' || item === null) return -1n
  const n = (item as { number?: unknown; blockNumber?: unknown }).number ?? (item as { blockNumber?: unknown }).blockNumber
  return typeof n === 'string' && isQuantity(n) ? BigInt(n) : -1n
}

const isQuantity = (v: unknown): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)
const isHash = (v: unknown): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v)

/**
 * Where a block parameter points: 'upstream' (strictly below the fork block,
 * or its own history for `history`), or 'local'. A hash is upstream when the
 * local chain does not know it.
 */
function side(node: Node, fork: Fork, block: unknown, history: boolean): 'upstream' | 'local' {
  const n = fork.blockNumber
  const byNumber = (v: string) => {
    const number = BigInt(v)
    return number < n || (history && number === n) ? 'upstream' : 'local'
  }
  const byHash = (hash: string) => {
    if (history && hash.toLowerCase() === fork.blockHash) return 'upstream'
    return node.chain.blockByHash(hash as `0x${string}`) ? 'local' : 'upstream'
  }
  if (block === 'earliest') return 'upstream'
  if (isHash(block)) return byHash(block)
  if (isQuantity(block)) return byNumber(block)
  if (typeof block === 'object' && block !== null) {
    const o = block as { blockNumber?: unknown; blockHash?: unknown }
    if (isQuantity(o.blockNumber)) return byNumber(o.blockNumber)
    if (isHash(o.blockHash)) return byHash(o.blockHash)
  }
  return 'local'
}

/** Answers `method` from the upstream when it is about the upstream's history. */
export async function routeToUpstream(
  node: Node,
  method: string,
  params: unknown,
  callLocal: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<Routed> {
  const fork = node.fork
  if (!fork || !Array.isArray(params)) return local
  const { cache } = fork
  // A hash the local chain does not know may name an upstream block above the fork block: not this chain's history.
  const upstream = async (): Promise<Routed> => {
    const result = await cache.read(method, params, (r) => !(numberOf(r) > fork.blockNumber))
    return { routed: true, result: numberOf(result) > fork.blockNumber ? null : result }
  }

  if (method in stateMethods) {
    const block = params[stateMethods[method]!]
    return side(node, fork, block === 'earliest' ? '0x0' : block, false) === 'upstream' ? upstream() : local
  }
  if (method in blockMethods) {
    const index = blockMethods[method]!
    const block = params[index]
    // Before the first local seal the head is the fork block: `latest` names the upstream's block N, transactions and all.
    if ((block === 'latest' || block === 'safe' || block === 'finalized') && node.chain.height() === fork.blockNumber) {
      const pinned = [...params]
      pinned[index] = `0x${fork.blockNumber.toString(16)}`
      return { routed: true, result: await cache.read(method, pinned) }
    }
    return side(node, fork, block === 'earliest' ? '0x0' : block, true) === 'upstream' ? upstream() : local
  }
  if (txMethods.has(method)) {
    const hash = params[0]
    if (!isHash(hash) || node.chain.txLocation(hash as `0x${string}`) || node.pool.get(hash as `0x${string}`)) return local
    if (node.pending().txs.some((tx) => tx.hash === hash.toLowerCase())) return local
    if (unnumbered.has(method)) {
      // Only a transaction the upstream included at or below the fork block is this chain's.
      const found = await cache.read<{ blockNumber?: string } | null>('eth_getTransactionByHash', [hash], (r) => r !== null && r.blockNumber != null && BigInt(r.blockNumber) <= fork.blockNumber)
      if (found === null || found.blockNumber == null || BigInt(found.blockNumber) > fork.blockNumber) return local
      return { routed: true, result: await cache.read(method, params) }
    }
    // Kept only when the upstream had it at or below the fork block: a later one is not this chain's.
    const result = await cache.read<{ blockNumber?: string } | null>(method, params, (r) => r !== null && r.blockNumber !== undefined && BigInt(r.blockNumber) <= fork.blockNumber)
    if (result === null || (result.blockNumber !== undefined && BigInt(result.blockNumber) > fork.blockNumber)) return { routed: true, result: null }
    return { routed: true, result }
  }
  if (method === 'eth_getLogs') return logs(node, fork, params, callLocal)
  if (method === 'eth_newFilter') return newFilter(node, fork, params)
  if (method === 'eth_getFilterLogs') return filterLogs(node, fork, params, callLocal)
  if (method === 'eth_feeHistory') return feeHistory(node, fork, params)
  return local
}

/**
 * eth_feeHistory over blocks all below the fork block is the upstream's; a
 * range that reaches the fork block or above is the local chain's, which
 * starts at the fork block (as geth does past the start of its history, it
 * answers from the oldest block it has: `oldestBlock` says which).
 */
async function feeHistory(node: Node, fork: Fork, params: unknown[]): Promise<Routed> {
  const [count, newest] = params
  const n = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : isQuantity(v) ? BigInt(v) : undefined)
  const newestNumber = newest === 'earliest' ? 0n : n(newest)
  // Tags (latest, pending, …) and hashes name the local chain; malformed params get the local method's error.
  if (n(count) === undefined || newestNumber === undefined || newestNumber >= fork.blockNumber) return local
  return { routed: true, result: await fork.cache.read('eth_feeHistory', params) }
}

/**
 * eth_getLogs across the fork boundary: the upstream's logs for the part of
 * the range at or below the fork block, the local chain's for the rest, in
 * block order.
 */
async function logs(
  node: Node,
  fork: Fork,
  params: unknown[],
  callLocal: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<Routed> {
  const filter = params[0]
  if (typeof filter !== 'object' || filter === null || params.length !== 1) return local
  const f = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown }
  if (f.blockHash !== undefined)
    return side(node, fork, f.blockHash, true) === 'upstream' ? { routed: true, result: await fork.cache.read('eth_getLogs', params) } : local
  const head = node.chain.height()
  const number = (v: unknown, fallback: bigint): bigint | undefined => {
    if (v === undefined || v === 'latest' || v === 'safe' || v === 'finalized') return v === undefined ? fallback : head
    if (v === 'pending') return head + 1n
    if (v === 'earliest') return 0n
    return isQuantity(v) ? BigInt(v) : undefined
  }
  const from = number(f.fromBlock, head)
  const to = number(f.toBlock, head)
  // Malformed or empty ranges: the local method gives the error.
  if (from === undefined || to === undefined || from > to || from > fork.blockNumber) return local
  const upTo = to < fork.blockNumber ? to : fork.blockNumber
  const below = await fork.cache.read<unknown[]>('eth_getLogs', [
    { ...f, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${upTo.toString(16)}` },
  ])
  if (to <= fork.blockNumber) return { routed: true, result: below }
  const above = (await callLocal('eth_getLogs', [{ ...f, fromBlock: `0x${(fork.blockNumber + 1n).toString(16)}` }])) as unknown[]
  return { routed: true, result: [...below, ...above] }
}

/** A decoded filter back in wire form, for the upstream and for `logs`. */
function wireFilter(filter: LogRequest): Record<string, unknown> {
  const block = (id: BlockId | undefined) =>
    id === undefined ? undefined : 'tag' in id ? id.tag : 'number' in id ? `0x${id.number.toString(16)}` : id.hash
  return {
    ...(filter.addresses ? { address: [...filter.addresses] } : {}),
    topics: filter.topics.map((t) => (t === null ? null : [...t])),
    ...(filter.blockHash ? { blockHash: filter.blockHash } : { fromBlock: block(filter.from), toBlock: block(filter.to) }),
  }
}

/**
 * eth_getFilterLogs of a log filter: what eth_getLogs answers for its
 * criteria now, upstream logs at or below the fork block included (as
 * Anvil's, which runs its logs query). eth_getFilterChanges needs nothing
 * from the upstream: it reports blocks sealed after the filter was
 * installed (as geth), which on a fork are all local.
 */
async function filterLogs(
  node: Node,
  fork: Fork,
  params: unknown[],
  callLocal: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<Routed> {
  const [id] = params
  // Malformed, unknown or not a log filter: the local method gives the error.
  if (params.length !== 1 || typeof id !== 'string' || !/^0x[0-9a-fA-F]+$/.test(id)) return local
  const filter = node.filters.get(id as `0x${string}`)
  if (filter?.kind !== 'logs') return local
  return logs(node, fork, [wireFilter(filter.criteria as LogRequest)], callLocal)
}

/**
 * eth_newFilter by the hash of an upstream block below the fork block: the
 * local chain does not know the hash, so the upstream says which block it
 * is (a block above the fork block is not this chain's: the local method
 * refuses it). Other filters install locally; their range is a range of
 * numbers, which eth_getFilterLogs splits at the fork block.
 */
async function newFilter(node: Node, fork: Fork, params: unknown[]): Promise<Routed> {
  const f = params[0]
  if (params.length !== 1 || typeof f !== 'object' || f === null) return local
  const { blockHash } = f as { blockHash?: unknown }
  if (!isHash(blockHash) || side(node, fork, blockHash, false) === 'local') return local
  const keep = (r: unknown) => numberOf(r) >= 0n && numberOf(r) <= fork.blockNumber
  const header = await fork.cache.read<unknown>('eth_getBlockByHash', [blockHash, false], keep)
  if (!keep(header)) return local
  const n = numberOf(header)
  const filter = logFilter(f)
  return { routed: true, result: node.filters.newLogFilter(filter, { from: n, to: n }, filter) }
}

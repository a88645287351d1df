import type { Hex } from 'viem'
import type { StoredBlock } from '../../node/chain.js'
import type { Node } from '../../node/node.js'
import type { PreconfSnapshot } from '../../node/preconf.js'
import { ArgError, address, blockId, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidInputError, InvalidParamsError } from '../errors.js'
import { formatLog, q, zeroHash } from '../format.js'

/** A decoded log filter. `topics[i]` null matches anything; a list matches any of its entries. */
export type LogFilter = {
  addresses: Set<string> | undefined
  topics: (Set<string> | null)[]
  from: ReturnType<typeof blockId> | undefined
  to: ReturnType<typeof blockId> | undefined
  blockHash: Hex | undefined
}

export const logFilter = (value: unknown): LogFilter => {
  if (value === undefined) value = {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgError('expected a filter object')
  const o = value as Record<string, unknown>
  const addresses =
    o.address == null ? undefined : new Set((Array.isArray(o.address) ? o.address : [o.address]).map((a) => address(a)))
  if (o.topics != null && !Array.isArray(o.topics)) throw new ArgError('topics: expected an array')
  const topics = ((o.topics as unknown[] | undefined) ?? []).map((t) =>
    t == null ? null : new Set((Array.isArray(t) ? t : [t]).map((x) => hash(x))),
  )
  if (topics.length > 4) throw new ArgError('too many topics (max 4)')
  const blockHash = o.blockHash == null ? undefined : hash(o.blockHash)
  if (blockHash && (o.fromBlock != null || o.toBlock != null))
    throw new InvalidParamsError('invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
  return {
    addresses,
    topics,
    from: o.fromBlock == null ? undefined : blockId(o.fromBlock),
    to: o.toBlock == null ? undefined : blockId(o.toBlock),
    blockHash,
  }
}

export function matches(filter: LogFilter, log: { address: Hex; topics: Hex[] }) {
  if (filter.addresses && !filter.addresses.has(log.address.toLowerCase())) return false
  for (let i = 0; i < filter.topics.length; i++) {
    const wanted = filter.topics[i]
    if (!wanted) continue
    const topic = log.topics[i]
    if (!topic || !wanted.has(topic.toLowerCase())) return false
  }
  return true
}

export function blockLogs(block: StoredBlock, filter: LogFilter, removed = false) {
  const out: ReturnType<typeof formatLog>[] = []
  const ts = block.block.header.timestamp
  block.txs.forEach((tx, txIndex) => {
    tx.logs.forEach((log, i) => {
      if (!matches(filter, log)) return
      out.push(
        formatLog(
          log,
          { blockNumber: block.number, blockHash: block.hash, blockTimestamp: ts, txHash: tx.hash, txIndex, logIndex: block.logOffsets[txIndex]! + i },
          removed,
        ),
      )
    })
  })
  return out
}

export function preconfLogs(snapshot: PreconfSnapshot, filter: LogFilter, onlyHashes?: ReadonlySet<Hex>) {
  const out: ReturnType<typeof formatLog>[] = []
  let logIndex = 0
  snapshot.txs.forEach((tx, txIndex) => {
    tx.logs.forEach((log) => {
      const index = logIndex++
      if (onlyHashes && !onlyHashes.has(tx.hash)) return
      if (!matches(filter, log)) return
      out.push(formatLog(log, { blockNumber: snapshot.number, blockHash: zeroHash, blockTimestamp: snapshot.env.timestamp, txHash: tx.hash, txIndex, logIndex: index }))
    })
  })
  return out
}

/** Resolves a filter's range, with geth's errors; `pending` ends take the pre-confirmed block. */
export function resolveRange(node: Node, filter: LogFilter) {
  const head = node.chain.height()
  const number = (id: LogFilter['from'], fallback: bigint): { n: bigint; pending: boolean } => {
    if (!id) return { n: fallback, pending: false }
    if ('tag' in id) {
      if (id.tag === 'pending') return { n: head + 1n, pending: true }
      if (id.tag === 'earliest') return { n: 0n, pending: false }
      return { n: node.views.resolve(id).number, pending: false }
    }
    if ('number' in id) return { n: id.number, pending: false }
    return { n: node.views.resolve(id).number, pending: false }
  }
  const from = number(filter.from, head)
  const to = number(filter.to, head)
  if (!from.pending && from.n > head) throw new InvalidInputError('block range extends beyond current head block')
  if (!to.pending && to.n > head) throw new InvalidInputError('block range extends beyond current head block')
  if (from.n > to.n) throw new InvalidInputError('invalid block range params')
  return { from, to, head }
}

/** eth_getLogs: sealed range, plus the pre-confirmed logs when the range ends at `pending`. */
export function getLogs(node: Node, filter: LogFilter) {
  if (filter.blockHash) {
    const block = node.chain.blockByHash(filter.blockHash)
    if (!block) throw new InvalidInputError('unknown block')
    return blockLogs(block, filter)
  }
  const { from, to, head } = resolveRange(node, filter)
  const out: ReturnType<typeof formatLog>[] = []
  const last = to.n > head ? head : to.n
  const limits = node.config.logs
  if (limits.maxBlockRange !== undefined && last - from.n + 1n > BigInt(limits.maxBlockRange))
    throw new InvalidParamsError(`query exceeds max block range ${limits.maxBlockRange}`)
  for (let n = from.n; n <= last; n++) out.push(...blockLogs(node.chain.blockByNumber(n)!, filter))
  if (to.pending) out.push(...preconfLogs(node.pending(), filter))
  if (limits.maxResults !== undefined && out.length > limits.maxResults)
    throw new InvalidParamsError(`query exceeds max results ${limits.maxResults}, retry with the range ${q(from.n)}-${q(last)}`)
  return out
}


export const logMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getLogs',
    params: [logFilter],
    handler: ({ node }, [filter]) => getLogs(node, filter),
  }),
]

import type { Hex } from 'viem'
import type { StoredBlock } from './chain.js'

/** One sealed log with where it sits; addresses and topics are lowercase. */
export type IndexedLog = {
  address: Hex
  topics: Hex[]
  data: Hex
  blockNumber: bigint
  blockHash: Hex
  blockTimestamp: bigint
  txHash: Hex
  txIndex: number
  logIndex: number
}

/**
 * A native log query: `addresses` undefined matches any address;
 * `topics[i]` null, absent or an empty set matches anything at position i
 * (geth: an empty list is a wildcard, as null is), a set matches any of its
 * entries. As in geth, a log with fewer topics than the query has positions
 * never matches.
 */
export type LogQuery = {
  addresses: ReadonlySet<string> | undefined
  topics: readonly (ReadonlySet<string> | null)[]
}

export function logMatches(query: LogQuery, log: { address: string; topics: readonly string[] }) {
  if (query.addresses && !query.addresses.has(log.address.toLowerCase())) return false
  if (query.topics.length > log.topics.length) return false
  for (let i = 0; i < query.topics.length; i++) {
    const wanted = query.topics[i]
    if (!wanted || wanted.size === 0) continue
    if (!wanted.has(log.topics[i]!.toLowerCase())) return false
  }
  return true
}

/** logMatches for an indexed log and a decoded query, both lowercase already: no string copies per log. */
function matchesLowercase(query: LogQuery, log: IndexedLog) {
  if (query.addresses && !query.addresses.has(log.address)) return false
  if (query.topics.length > log.topics.length) return false
  for (let i = 0; i < query.topics.length; i++) {
    const wanted = query.topics[i]
    if (!wanted || wanted.size === 0) continue
    if (!wanted.has(log.topics[i]!)) return false
  }
  return true
}

/** The values present in both ascending lists. */
function intersect(a: readonly number[], b: readonly number[]) {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++
    else if (a[i]! > b[j]!) j++
    else {
      out.push(a[i]!)
      i++
      j++
    }
  }
  return out
}

/** First index in the ascending `list` whose value is >= `value`. */
function lowerBound(list: readonly number[], value: number) {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A block's logs as the index keeps them (also for blocks no longer in the chain: removed logs). */
export function logsOf(block: StoredBlock): IndexedLog[] {
  const out: IndexedLog[] = []
  // A fixture load's blocks are decoded on first read (fixture/lazyBlock.ts): indexing their logs does not read them.
  const timestamp = block.timestamp ?? block.block.header.timestamp
  block.txs.forEach((tx, txIndex) => {
    tx.logs.forEach((log, i) => {
      out.push({
        address: log.address.toLowerCase() as Hex,
        topics: log.topics.map((t) => t.toLowerCase() as Hex),
        data: log.data,
        blockNumber: block.number,
        blockHash: block.hash,
        blockTimestamp: timestamp,
        txHash: tx.hash,
        txIndex,
        logIndex: block.logOffsets[txIndex]! + i,
      })
    })
  })
  return out
}

/**
 * Logs of the sealed chain, indexed by address and by topic at each position.
 * Every log has a position in chain order; each key maps to the ascending
 * list of positions holding it, so a block range is a position range and a
 * selective query reads only the positions of its rarest key instead of
 * scanning every block. Appends and truncations only touch list ends, since
 * the chain only grows or loses its newest blocks.
 */
export function createLogIndex() {
  const logs: IndexedLog[] = []
  /** blockStart[n]: position of block n's first log; blockStart[height + 1] = logs.length. */
  const blockStart: number[] = [0]
  const byAddress = new Map<string, number[]>()
  const byTopic: Map<string, number[]>[] = [new Map(), new Map(), new Map(), new Map()]
  // The first indexed block's number: 0, or a fork's fork block (the logs below it are the upstream's).
  let first: bigint | undefined
  /** Index into blockStart of block `n` (blocks below the first count as the first). */
  const at = (n: bigint) => (first === undefined || n < first ? 0 : Number(n - first))

  const push = (map: Map<string, number[]>, key: string, position: number) => {
    const list = map.get(key)
    if (list) list.push(position)
    else map.set(key, [position])
  }
  const pop = (map: Map<string, number[]>, key: string) => {
    const list = map.get(key)!
    list.pop()
    if (list.length === 0) map.delete(key)
  }

  /** Positions in [start, end) of the entries of `keys` in `map`, ascending; the count comes first so the rarest key can be picked. */
  const count = (map: Map<string, number[]>, keys: ReadonlySet<string>, start: number, end: number) => {
    let n = 0
    for (const key of keys) {
      const list = map.get(key)
      if (list) n += lowerBound(list, end) - lowerBound(list, start)
    }
    return n
  }
  const positions = (map: Map<string, number[]>, keys: ReadonlySet<string>, start: number, end: number) => {
    const out: number[] = []
    for (const key of keys) {
      const list = map.get(key)
      if (!list) continue
      for (let i = lowerBound(list, start), stop = lowerBound(list, end); i < stop; i++) out.push(list[i]!)
    }
    // Several keys give several ascending runs; one key's run is already in order.
    if (keys.size > 1) out.sort((a, b) => a - b)
    return out
  }

  return {
    /** Adds a block's logs; blocks must come in order. */
    append(block: StoredBlock) {
      first ??= block.number
      if (first + BigInt(blockStart.length - 1) !== block.number)
        throw new Error(`log index: block ${block.number} does not follow ${first + BigInt(blockStart.length - 2)}`)
      for (const log of logsOf(block)) {
        const position = logs.length
        logs.push(log)
        push(byAddress, log.address, position)
        log.topics.forEach((topic, j) => {
          if (j < 4) push(byTopic[j]!, topic, position)
        })
      }
      blockStart.push(logs.length)
    },
    /** Drops every block above `number`. */
    truncate(number: bigint) {
      // Below the first block: everything goes (a snapshot restore or fixture load re-appends from it).
      const keep = first !== undefined && number < first ? 0 : at(number) + 1
      if (keep >= blockStart.length - 1) return
      const end = blockStart[keep]!
      for (let position = logs.length - 1; position >= end; position--) {
        const log = logs[position]!
        pop(byAddress, log.address)
        log.topics.forEach((topic, j) => {
          if (j < 4) pop(byTopic[j]!, topic)
        })
      }
      logs.length = end
      blockStart.length = keep + 1
    },
    /** Number of logs in blocks [from, to]. */
    countInRange(from: bigint, to: bigint) {
      return (blockStart[at(to) + 1] ?? logs.length) - blockStart[at(from)]!
    },
    /**
     * Logs in blocks [from, to] that match `query`, in chain order. With
     * `limit`, stops once more than `limit` logs matched and reports the
     * block where that happened.
     */
    query(query: LogQuery, from: bigint, to: bigint, limit?: number): { logs: IndexedLog[]; overflowAt?: bigint } {
      const start = blockStart[at(from)] ?? logs.length
      const end = to < (first ?? 0n) ? start : (blockStart[at(to) + 1] ?? logs.length)
      // The two keys with the fewest positions in range: their posting lists are intersected, the rest is checked per log.
      const keys: { map: Map<string, number[]>; keys: ReadonlySet<string>; n: number }[] = []
      if (query.addresses) keys.push({ map: byAddress, keys: query.addresses, n: count(byAddress, query.addresses, start, end) })
      query.topics.forEach((set, j) => {
        // An empty set is a wildcard: no posting list to intersect.
        if (set && set.size > 0 && j < 4) keys.push({ map: byTopic[j]!, keys: set, n: count(byTopic[j]!, set, start, end) })
      })
      keys.sort((a, b) => a.n - b.n)
      const out: IndexedLog[] = []
      const take = (log: IndexedLog) => {
        if (!matchesLowercase(query, log)) return false
        out.push(log)
        return limit !== undefined && out.length > limit
      }
      if (keys.length > 0) {
        let candidates = positions(keys[0]!.map, keys[0]!.keys, start, end)
        if (keys.length > 1 && candidates.length > 64)
          candidates = intersect(candidates, positions(keys[1]!.map, keys[1]!.keys, start, end))
        for (const position of candidates)
          if (take(logs[position]!)) return { logs: out, overflowAt: logs[position]!.blockNumber }
      } else {
        for (let position = start; position < end; position++)
          if (take(logs[position]!)) return { logs: out, overflowAt: logs[position]!.blockNumber }
      }
      return { logs: out }
    },
    /** The logs of one indexed block, in order. */
    ofBlock(number: bigint): IndexedLog[] {
      if (first !== undefined && number < first) return []
      const n = at(number)
      if (n + 1 >= blockStart.length) return []
      return logs.slice(blockStart[n]!, blockStart[n + 1]!)
    },
    size: () => logs.length,
  }
}

export type LogIndex = ReturnType<typeof createLogIndex>

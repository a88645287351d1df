import type { Hex } from 'viem'
import { describe, expect, test } from 'vitest'
import type { StoredBlock } from '../../src/node/chain.js'
import { type IndexedLog, type LogQuery, createLogIndex, logMatches } from '../../src/node/logIndex.js'

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex

/** A block with random logs from small address and topic pools, so queries match often. */
function block(number: number, rand: () => number, salt: number): StoredBlock {
  const txs = Array.from({ length: Math.floor(rand() * 4) }, (_, t) => ({
    hash: word(number * 1000 + t + salt * 1_000_000),
    logs: Array.from({ length: Math.floor(rand() * 4) }, () => ({
      address: addr(1 + Math.floor(rand() * 4)),
      topics: Array.from({ length: Math.floor(rand() * 5) }, () => word(Math.floor(rand() * 6))),
      data: word(Math.floor(rand() * 1e9)),
    })),
  }))
  const logOffsets: number[] = []
  let offset = 0
  for (const tx of txs) {
    logOffsets.push(offset)
    offset += tx.logs.length
  }
  return {
    number: BigInt(number),
    hash: word(number + salt * 7919),
    logOffsets,
    txs,
    block: { header: { timestamp: BigInt(1000 + number) } },
  } as unknown as StoredBlock
}

/** The same query answered by reading every log of every block. */
function scan(blocks: StoredBlock[], query: LogQuery, from: number, to: number) {
  const out: [Hex, number][] = []
  for (const b of blocks.slice(from, to + 1))
    b.txs.forEach((tx, i) => tx.logs.forEach((log, j) => logMatches(query, log) && out.push([b.hash, b.logOffsets[i]! + j])))
  return out
}

function randomQuery(rand: () => number): LogQuery {
  const pick = (make: (n: number) => Hex, pool: number) =>
    new Set(Array.from({ length: 1 + Math.floor(rand() * 2) }, () => make(Math.floor(rand() * pool))))
  return {
    addresses: rand() < 0.5 ? pick((n) => addr(1 + n), 4) : undefined,
    topics: Array.from({ length: Math.floor(rand() * 4) }, () => (rand() < 0.4 ? null : pick(word, 6))),
  }
}

describe('log index', () => {
  test('answers exactly as a full scan, before and after truncations and re-appends', () => {
    const rand = random(42)
    const index = createLogIndex()
    let blocks: StoredBlock[] = []
    for (let n = 0; n < 150; n++) {
      blocks.push(block(n, rand, 0))
      index.append(blocks[n]!)
    }
    const check = () => {
      for (let k = 0; k < 300; k++) {
        const query = randomQuery(rand)
        const a = Math.floor(rand() * blocks.length)
        const b = Math.floor(rand() * blocks.length)
        const [from, to] = a <= b ? [a, b] : [b, a]
        const found = index.query(query, BigInt(from), BigInt(to)).logs.map((l: IndexedLog) => [l.blockHash, l.logIndex])
        expect(found).toEqual(scan(blocks, query, from, to))
      }
    }
    check()
    for (let round = 1; round <= 3; round++) {
      const keep = 100 - round * 20
      index.truncate(BigInt(keep))
      blocks = blocks.slice(0, keep + 1)
      for (let n = keep + 1; n < 150; n++) {
        blocks.push(block(n, rand, round))
        index.append(blocks[n]!)
      }
      check()
    }
    expect(() => index.append(block(500, rand, 9))).toThrow(/does not follow/)
  })

  test('a limit stops at the block where the count was passed', () => {
    const rand = random(7)
    const index = createLogIndex()
    const blocks = Array.from({ length: 50 }, (_, n) => block(n, rand, 0))
    for (const b of blocks) index.append(b)
    const everything = { addresses: undefined, topics: [] }
    const all = index.query(everything, 0n, 49n).logs
    const limit = Math.floor(all.length / 2)
    const { logs, overflowAt } = index.query(everything, 0n, 49n, limit)
    expect(logs).toHaveLength(limit + 1)
    expect(overflowAt).toBe(all[limit]!.blockNumber)
  })
})

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, test } from 'vitest'
import { keccak256 } from '../../src/evm/keccak.js'
import { keccakWord } from '../../src/evm/keccakMemo.js'
import { seededRandom } from './generators.js'

// A full GC, without starting the test run with --expose-gc.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

describe('keccakMemo', () => {
  test('a remembered 64-byte input costs its flat hex key, not a rope of 64 cons cells', () => {
    const random = seededRandom(7)
    const inputs = Array.from({ length: 5000 }, () => random.bytes(64))
    // A table of its own: the memo is per hash function.
    const keccak = (data: Uint8Array) => keccak256(data)
    gc()
    const before = process.memoryUsage().heapUsed
    for (const input of inputs) keccakWord(keccak, input)
    gc()
    const grown = process.memoryUsage().heapUsed - before
    // Flat: 5,000 × (a 128-character key + a bigint + the map entry) ≈ 1.5 MB. As ropes: +5,000 × 63 × 32 B ≈ 10 MB more.
    expect(grown).toBeLessThan(4 * 2 ** 20)
    // Still a memo: the same input gives the same word, equal to the hash.
    expect(keccakWord(keccak, inputs[0]!)).toBe(BigInt(`0x${Buffer.from(keccak256(inputs[0]!)).toString('hex')}`))
  })
})

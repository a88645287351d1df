import { keccak256 as viemKeccak256 } from 'viem/utils'
import { describe, expect, it } from 'vitest'
import { customCrypto } from '../../src/evm/crypto.js'
import { keccak256, keccak256Fallback, keccakReady, wasmKeccakInUse } from '../../src/evm/keccak.js'

/** A deterministic byte stream (xorshift32), so a failure reproduces. */
function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed | 1
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

// Around keccak-256's rate (136 bytes), trie-node sizes, and past hash-wasm's 16 KiB input chunk.
const sizes = [0, 1, 20, 31, 32, 33, 64, 100, 110, 135, 136, 137, 271, 272, 273, 532, 1000, 4096, 16383, 16384, 16385, 40000]

describe('keccak256', () => {
  it('uses the WebAssembly keccak once ready', async () => {
    await keccakReady
    expect(wasmKeccakInUse()).toBe(true)
    expect(customCrypto.keccak256).toBe(keccak256)
  })

  it('gives the same bytes as the native/fallback keccak and noble, on random inputs of many sizes', async () => {
    await keccakReady
    let seed = 0x9e3779b9
    for (const size of sizes) {
      for (let round = 0; round < 4; round++) {
        const data = randomBytes(size, seed++)
        const expected = viemKeccak256(data, 'bytes')
        expect(keccak256(data)).toEqual(expected)
        expect(keccak256Fallback(data)).toEqual(expected)
      }
    }
  })

  it('hashes a view into a larger buffer (Buffer and subarray) by its own bytes only', async () => {
    await keccakReady
    const backing = randomBytes(300, 7)
    const view = backing.subarray(17, 17 + 110)
    expect(keccak256(view)).toEqual(viemKeccak256(view.slice(), 'bytes'))
    const buffer = Buffer.from(backing.buffer, 40, 64)
    expect(keccak256(buffer)).toEqual(viemKeccak256(Uint8Array.from(buffer), 'bytes'))
  })

  it('returns a fresh array each call (a later hash does not change an earlier result)', async () => {
    await keccakReady
    const first = keccak256(Uint8Array.of(1, 2, 3))
    const copy = first.slice()
    keccak256(randomBytes(500, 3))
    expect(first).toEqual(copy)
    expect(first.length).toBe(32)
  })

  it('matches the known hash of the empty input', () => {
    expect(Buffer.from(keccak256(new Uint8Array())).toString('hex')).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })
})

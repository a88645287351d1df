import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, bytesToBigInt as libraryBytesToBigInt, setLengthLeft } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { stockEngine } from './installEngine.js'
import { encode, libraryEncode } from '../../src/evm/rlpEncode.js'
import { bytesToBigInt, word32 } from '../../src/evm/opcodeHandlers.js'

/** A deterministic generator, so a failure names its case. */
function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

type Item = Uint8Array | Item[] | string | number | bigint | null | undefined

function item(next: () => number, depth: number): Item {
  const kind = next()
  if (depth < 3 && kind < 0.25) return Array.from({ length: Math.floor(next() * 8) }, () => item(next, depth + 1))
  if (kind < 0.3) return Uint8Array.of(Math.floor(next() * 256))
  if (kind < 0.35) return BigInt(Math.floor(next() * 2 ** 40))
  if (kind < 0.38) return Math.floor(next() * 70_000)
  if (kind < 0.4) return `0x${Math.floor(next() * 2 ** 30).toString(16)}`
  if (kind < 0.42) return 'dog'
  if (kind < 0.43) return null
  // Lengths around the 55/56 boundary and beyond 255 bytes (two-byte lengths).
  const lengths = [0, 1, 2, 54, 55, 56, 57, 255, 256, 1000]
  const length = lengths[Math.floor(next() * lengths.length)]!
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(next() * 256)
  return bytes
}

describe('RLP encoder', () => {
  it.skipIf(stockEngine)('is installed as RLP.encode', () => {
    expect(RLP.encode).toBe(encode)
  })

  it('encodes byte for byte as the library does: scalars, nested lists, every length class', () => {
    const next = random(7)
    for (let i = 0; i < 800; i++) {
      const input = item(next, 0)
      expect(encode(input as never), `case ${i}`).toEqual(libraryEncode(input as never))
    }
    const empty: Item[] = []
    expect(encode(empty as never)).toEqual(Uint8Array.of(0xc0))
    expect(encode([[], [[]], [[], [[]]]] as never)).toEqual(libraryEncode([[], [[]], [[], [[]]]] as never))
    // A long list (payload over 55 bytes and over 255 bytes).
    const long = Array.from({ length: 300 }, (_, j) => Uint8Array.of(j & 0xff, 1))
    expect(encode(long as never)).toEqual(libraryEncode(long as never))
    // Three-byte lengths: a 70 kB string, alone and in a list.
    const big = new Uint8Array(70_000).map((_, j) => j & 0xff)
    expect(encode(big)).toEqual(libraryEncode(big))
    expect(encode([big, [big]] as never)).toEqual(libraryEncode([big, [big]] as never))
  })

  it('hands a single byte below 0x80 back as the same array, as the library does', () => {
    const one = Uint8Array.of(0x7f)
    expect(encode(one)).toBe(one)
  })
})

describe('stack word to 32 bytes', () => {
  it('equals setLengthLeft(bigIntToBytes(word), 32) for edge and random words', () => {
    const next = random(11)
    const words = [0n, 1n, 0xffn, 0x100n, (1n << 64n) - 1n, 1n << 64n, (1n << 255n) + 5n, (1n << 256n) - 1n]
    for (let i = 0; i < 500; i++) {
      let w = 0n
      const bytes = Math.floor(next() * 33)
      for (let j = 0; j < bytes; j++) w = (w << 8n) | BigInt(Math.floor(next() * 256))
      words.push(w)
    }
    for (const w of words) expect(word32(w), w.toString(16)).toEqual(setLengthLeft(bigIntToBytes(w), 32))
  })

  it('reads bytes back as the library does, for every length up to 32 and for views into a larger array', () => {
    const next = random(13)
    const backing = new Uint8Array(100).map(() => Math.floor(next() * 256))
    for (let length = 0; length <= 32; length++)
      for (const start of [0, 1, 7, 40]) {
        const bytes = backing.subarray(start, start + length)
        expect(bytesToBigInt(bytes), `${start}+${length}`).toBe(libraryBytesToBigInt(bytes))
      }
  })
})

describe('keccak memos', () => {
  it('KECCAK256 pushes what hashing gives, for repeated, short, empty and long inputs', async () => {
    const { keccakWord } = await import('../../src/evm/keccakMemo.js')
    const { keccak256 } = await import('viem/utils')
    const hash = (data: Uint8Array) => keccak256(data, 'bytes')
    const inputs = [new Uint8Array(0), Uint8Array.of(1), new Uint8Array(64).fill(3), new Uint8Array(64).fill(3), new Uint8Array(500).fill(9)]
    for (const data of inputs) expect(keccakWord(hash, data)).toBe(BigInt(keccak256(data)))
  })

  it('a bloom sets the bits the library would, for the same entry added twice and for different ones', async () => {
    const { Bloom } = await import('@ethereumjs/vm')
    const { keccak256, hexToBytes } = await import('viem/utils')
    const bloom = new Bloom()
    const entries = [hexToBytes('0x00000000000000000000000000000000000fee01'), hexToBytes(`0x${'ab'.repeat(32)}`), hexToBytes(`0x${'ab'.repeat(32)}`)]
    for (const e of entries) bloom.add(e)
    const expected = new Uint8Array(256)
    for (const e of entries) {
      const h = keccak256(e, 'bytes')
      for (let i = 0; i < 3; i++) {
        const loc = 2047 & ((h[i * 2]! << 8) | h[i * 2 + 1]!)
        expected[256 - (loc >> 3) - 1]! |= 1 << (loc % 8)
      }
    }
    expect(bloom.bitvector).toEqual(expected)
    for (const e of entries) expect(bloom.check(e)).toBe(true)
  })
})

import { describe, expect, test } from 'vitest'
import { checkLimits, sanitizeChain } from './sanitize.js'

const base = { number: 10n, timestamp: 1_000n }
const step = { step: 12n }
const settled = (blocks: ReturnType<typeof sanitizeChain>) => blocks.map((b) => [b.blockOverrides.number, b.blockOverrides.time, b.calls.length])

describe('sanitizeChain', () => {
  test('default: numbers and times step from the base', () => {
    expect(settled(sanitizeChain(base, [{ calls: [] }, { calls: [] }], step))).toEqual([
      [11n, 1_012n, 0],
      [12n, 1_024n, 0],
    ])
  })

  test('behavior: a gap is filled with empty blocks, each a step apart', () => {
    const call = { from: '0x0000000000000000000000000000000000000001' as const }
    expect(settled(sanitizeChain(base, [{ blockOverrides: { number: 13n }, calls: [call] }], step))).toEqual([
      [11n, 1_012n, 0],
      [12n, 1_024n, 0],
      [13n, 1_036n, 1],
    ])
  })

  test('args: firstTime (pending) sets the first default timestamp only', () => {
    expect(settled(sanitizeChain(base, [{ calls: [] }, { calls: [] }], { step: 2n, firstTime: 1_001n }))).toEqual([
      [11n, 1_001n, 0],
      [12n, 1_003n, 0],
    ])
  })

  test('error: numbers must increase, timestamps strictly increase, at most 256 blocks above the base', () => {
    expect(() => sanitizeChain(base, [{ blockOverrides: { number: 10n }, calls: [] }], step)).toThrow('block numbers must be in order: 10 <= 10')
    expect(() => sanitizeChain(base, [{ blockOverrides: { time: 1_000n }, calls: [] }], step)).toThrow('block timestamps must be in order: 1000 <= 1000')
    expect(() => sanitizeChain(base, [{ blockOverrides: { number: 267n }, calls: [] }], step)).toThrow('too many blocks')
    expect(sanitizeChain(base, [{ blockOverrides: { number: 266n }, calls: [] }], step)).toHaveLength(256)
  })
})

describe('checkLimits', () => {
  test('error: empty input, too many blocks, too many calls', () => {
    expect(() => checkLimits([])).toThrow('empty input')
    expect(() => checkLimits(Array.from({ length: 257 }, () => ({ calls: [] })))).toThrow('too many blocks')
    const calls = Array.from({ length: 5_000 }, () => ({}))
    expect(() => checkLimits([{ calls }, { calls }, { calls: [{}] }])).toThrow('too many calls: 10001 > 10000')
  })
})

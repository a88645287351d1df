import { describe, expect, it } from 'vitest'
import { NodeTable } from '../../src/evm/nodeTable.js'
import { PackedNodeStore, packedKeyOf } from '../../src/evm/packedNodeStore.js'

const bytes = (...values: number[]) => Uint8Array.from(values)

describe('PackedNodeStore', () => {
  it('returns exactly the bytes written, for hex keys with byte or hex values', () => {
    const store = new PackedNodeStore()
    const key = 'ab'.repeat(32)
    store.set(key, bytes(1, 2, 3))
    store.set('63' + 'cd'.repeat(32), 'DEADbeef')
    store.set('00', new Uint8Array(0))
    expect(store.get(key)).toEqual(bytes(1, 2, 3))
    expect(store.get('63' + 'cd'.repeat(32))).toEqual(bytes(0xde, 0xad, 0xbe, 0xef))
    expect(store.get('00')).toEqual(new Uint8Array(0))
    expect(store.get('ab'.repeat(31))).toBeUndefined()
    expect(store.has(key)).toBe(true)
    expect(store.size).toBe(3)
    expect([...store.keys()].sort()).toEqual(['00', '63' + 'cd'.repeat(32), key].sort())
  })

  it('keeps values across many slabs, a value larger than a slab, and a rewrite', () => {
    const store = new PackedNodeStore()
    const values = new Map<string, Uint8Array>()
    for (let i = 0; i < 20_000; i++) {
      const value = new Uint8Array(100 + (i % 400)).fill(i & 0xff)
      value[0] = i >> 8
      const key = i.toString(16).padStart(64, '0')
      values.set(key, value)
      store.set(key, value)
    }
    const large = new Uint8Array(3 << 20).map((_, i) => i % 251)
    store.set('ff'.repeat(32), large)
    store.set('00'.repeat(32), bytes(9))
    values.set('00'.repeat(32), bytes(9))
    const differing = [...values].filter(([key, value]) => {
      const stored = store.get(key)
      return !(stored instanceof Uint8Array) || Buffer.compare(stored, value) !== 0
    })
    expect(differing).toEqual([])
    expect(Buffer.compare(store.get('ff'.repeat(32)) as Uint8Array, large)).toBe(0)
    expect(store.slabBytes).toBeGreaterThan(3 << 20)
    expect(store.delete('00'.repeat(32))).toBe(true)
    expect(store.get('00'.repeat(32))).toBeUndefined()
    expect(store.size).toBe(20_000)
  })

  it('keeps keys and values it cannot pack as given', () => {
    const store = new PackedNodeStore()
    store.set('not hex', bytes(1))
    store.set('ABCD', bytes(2))
    store.set('abcd', 'not hex either')
    expect(store.get('not hex')).toEqual(bytes(1))
    expect(store.get('ABCD')).toEqual(bytes(2))
    expect(store.get('abcd')).toBe('not hex either')
    expect(new Map(store)).toEqual(
      new Map<string, unknown>([
        ['not hex', bytes(1)],
        ['ABCD', bytes(2)],
        ['abcd', 'not hex either'],
      ]),
    )
    store.set('abcd', bytes(3))
    expect(store.get('abcd')).toEqual(bytes(3))
    expect(store.size).toBe(3)
  })
})

describe('PackedNodeStore with attached tables', () => {
  const key = (n: number) => n.toString(16).padStart(64, '0')
  /** A table of `keys` (numbers) with values [n, n] each. */
  const tableOf = (...keys: number[]) => {
    const keyBytes = Buffer.concat(keys.map((n) => Buffer.from(key(n), 'hex')))
    const values = Uint8Array.from(keys.flatMap((n) => [n & 0xff, n & 0xff]))
    return NodeTable.of(keyBytes, values, Int32Array.from([0, ...keys.map((_, i) => 2 * (i + 1))]))
  }

  it('reads a table after its own entries: an entry set before or after shadows the table, a deletion hides it', () => {
    const store = new PackedNodeStore()
    store.set(key(1), bytes(9))
    const detach = store.attach(tableOf(1, 2, 3))
    expect(store.get(key(1))).toEqual(bytes(9))
    expect(store.get(key(2))).toEqual(bytes(2, 2))
    expect(store.has(key(3))).toBe(true)
    expect(store.has(key(4))).toBe(false)
    store.set(key(2), bytes(7))
    expect(store.get(key(2))).toEqual(bytes(7))
    expect(store.delete(key(3))).toBe(true)
    expect(store.get(key(3))).toBeUndefined()
    expect(store.size).toBe(2)
    expect(new Map(store)).toEqual(new Map([[key(1), bytes(9)], [key(2), bytes(7)]]))
    // locate / readLocated: the walk's way of keeping a node.
    const packed = packedKeyOf(Buffer.from(key(1), 'hex'), 0)
    expect(store.readLocated(store.locate(packed))).toEqual(bytes(9))
    // locatedKeys: the keys set here (not the table's) written one after the other, each with the place locate gives.
    const into = Buffer.alloc(32 * store.sizeBound)
    const { count, places } = store.locatedKeys(into)
    const located = Array.from({ length: count }, (_, i) => [into.toString('hex', i * 32, i * 32 + 32), places[i]!] as const)
    expect(located.map(([k]) => k).sort()).toEqual([key(1), key(2)])
    for (const [k, place] of located) expect(place).toBe(store.locate(packedKeyOf(Buffer.from(k, 'hex'), 0)))
    detach()
    expect(store.get(key(3))).toBeUndefined()
    expect(store.size).toBe(2)
  })

  it('keeps one copy of a table attached twice, and a later table under an earlier one', () => {
    const store = new PackedNodeStore()
    store.attach(tableOf(1, 2))
    store.attach(tableOf(1, 2))
    expect(store.sizeBound).toBe(2)
    const later = NodeTable.of(Buffer.from(key(2) + key(5), 'hex'), bytes(8, 8), Int32Array.of(0, 1, 2))
    const detach = store.attach(later)
    expect(store.get(key(2))).toEqual(bytes(2, 2))
    expect(store.get(key(5))).toEqual(bytes(8))
    expect(store.size).toBe(3)
    expect([...store.keys()].sort()).toEqual([key(1), key(2), key(5)])
    const place = store.locate(packedKeyOf(Buffer.from(key(5), 'hex'), 0))
    expect(place).toBeLessThan(-1)
    expect(store.readLocated(place)).toEqual(bytes(8))
    detach()
    expect(store.get(key(5))).toBeUndefined()
  })
})

import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import './installEngine.js'
import { seededRandom } from './generators.js'
import { decodeNodeItems, encodeBranch } from '../../src/evm/trieNodeCodec.js'

const random = seededRandom

const hash = (data: Uint8Array) => keccak256(data, 'bytes')

/** The trie root computed from scratch (sorted keys, recursive), independent of ethereumjs's insert and delete paths. */
function referenceRoot(entries: Map<string, Uint8Array>): Uint8Array {
  const items = [...entries].map(([k, v]) => ({ path: [...Buffer.from(k, 'hex')].flatMap((b) => [b >> 4, b & 15]), value: v }))
  const hp = (nibbles: number[], leaf: boolean) => {
    const flag = (leaf ? 2 : 0) + (nibbles.length % 2)
    const all = nibbles.length % 2 ? [flag, ...nibbles] : [flag, 0, ...nibbles]
    return Uint8Array.from({ length: all.length / 2 }, (_, i) => (all[2 * i]! << 4) | all[2 * i + 1]!)
  }
  const ref = (raw: unknown): unknown => {
    const encoded = RLP.encode(raw as never)
    return encoded.length < 32 ? raw : hash(encoded)
  }
  const node = (group: typeof items, depth: number): unknown => {
    if (group.length === 1) return [hp(group[0]!.path.slice(depth), true), group[0]!.value]
    let common = 0
    while (group.every((i) => i.path[depth + common] === group[0]!.path[depth + common])) common++
    if (common > 0) return [hp(group[0]!.path.slice(depth, depth + common), false), ref(node(group, depth + common))]
    const children = Array.from({ length: 16 }, (_, n) => {
      const sub = group.filter((i) => i.path[depth] === n)
      return sub.length === 0 ? new Uint8Array() : ref(node(sub, depth + 1))
    })
    return [...children, new Uint8Array()]
  }
  if (items.length === 0) return hash(Uint8Array.of(0x80))
  return hash(RLP.encode(node(items, 0) as never))
}

describe('trie node codec', () => {
  it('encodes branches byte for byte as RLP does, and leaves inlined children to ethereumjs', () => {
    const r = random(1)
    const values = [null, new Uint8Array(), Uint8Array.of(5), Uint8Array.of(0x80), r.bytes(40), r.bytes(60), r.bytes(300)]
    for (let round = 0; round < 500; round++) {
      const branches = Array.from({ length: 16 }, () => (r.int(3) === 0 ? null : r.int(4) === 0 ? new Uint8Array() : r.bytes(32)))
      const value = values[r.int(values.length)]!
      expect(encodeBranch(branches, value)).toEqual(RLP.encode([...branches.map((b) => b ?? new Uint8Array()), value ?? new Uint8Array()]))
    }
    const inlined = Array.from({ length: 16 }, (_, i) => (i === 3 ? [Uint8Array.of(0x20), Uint8Array.of(1)] : null))
    expect(encodeBranch(inlined, null)).toBeUndefined()
  })

  it('decodes branches, leaves and extensions as RLP does, and leaves other shapes to ethereumjs', () => {
    const r = random(2)
    for (let round = 0; round < 500; round++) {
      const raw =
        r.int(2) === 0
          ? [...Array.from({ length: 16 }, () => (r.int(3) === 0 ? new Uint8Array() : r.bytes(32))), new Uint8Array()]
          : [r.bytes(1 + r.int(33)), r.bytes(1 + r.int(120))]
      const encoded = RLP.encode(raw)
      expect(decodeNodeItems(encoded)).toEqual(RLP.decode(encoded))
    }
    // A list inside (an inlined child) and a wrong item count are not decoded here.
    expect(decodeNodeItems(RLP.encode([Uint8Array.of(0x20), [Uint8Array.of(1), Uint8Array.of(2)]]))).toBeUndefined()
    expect(decodeNodeItems(RLP.encode([Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)]))).toBeUndefined()
    // Trailing bytes are not a node.
    expect(decodeNodeItems(Uint8Array.from([...RLP.encode([Uint8Array.of(0x20), r.bytes(40)]), 0]))).toBeUndefined()
  })

  it('gives the from-scratch root after inserts, updates and deletes in a hashed-key trie', async () => {
    const r = random(3)
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    const entries = new Map<string, Uint8Array>()
    const keys: Uint8Array[] = []
    for (let step = 0; step < 1500; step++) {
      const op = r.int(10)
      if (op < 6 || keys.length === 0) {
        const key = r.bytes(20)
        const value = r.bytes(1 + r.int(90))
        keys.push(key)
        await trie.put(key, value)
        entries.set(Buffer.from(hash(key)).toString('hex'), value)
      } else if (op < 8) {
        const key = keys[r.int(keys.length)]!
        const value = r.bytes(1 + r.int(90))
        await trie.put(key, value)
        entries.set(Buffer.from(hash(key)).toString('hex'), value)
      } else {
        const key = keys.splice(r.int(keys.length), 1)[0]!
        await trie.del(key)
        entries.delete(Buffer.from(hash(key)).toString('hex'))
      }
      if (step % 250 === 249) expect(trie.root()).toEqual(referenceRoot(entries))
    }
    for (const key of keys) expect(await trie.get(key)).toEqual(entries.get(Buffer.from(hash(key)).toString('hex')))
  })
})

import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB, ValueEncoding } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { stockEngine } from './installEngine.js'
import { seededRandom } from './generators.js'
import { batchUpdate } from '../../src/evm/batchTrieUpdate.js'
import { PackedNodeStore } from '../../src/evm/packedNodeStore.js'
import { syncTrieDb } from '../../src/evm/syncTrieDb.js'
import { getSync, notWalked } from '../../src/evm/syncTrieGet.js'

/** The library's own get: findPath through its WalkController. */
const libraryGet = (trie: MerklePatriciaTrie, key: Uint8Array) =>
  (trie as unknown as { findPath(k: Uint8Array): Promise<{ node: { value(): Uint8Array | null } | null; remaining: number[] }> })
    .findPath(trie['appliedKey'](key))
    .then(({ node, remaining }) => (node && remaining.length === 0 ? node.value() : null))

/**
 * Random tries (built by batchUpdate, whose database writes go through syncTrieDb too) read with getSync and with
 * the library's findPath, for keys present, deleted and never written, and for keys that share a prefix with
 * stored ones: the answers must be the same bytes (or both null) at every root.
 */
async function compare(opts: { hashed: boolean; keyLength: number; valueLength: () => number; seed: number; rounds: number }) {
  const r = seededRandom(opts.seed)
  const trie = new MerklePatriciaTrie({ useKeyHashing: opts.hashed })
  const written: Uint8Array[] = []
  let walked = 0
  for (let round = 0; round < opts.rounds; round++) {
    const changes: { key: Uint8Array; value: Uint8Array | null }[] = []
    for (let i = 0; i < 1 + r.int(20); i++) {
      if (written.length > 0 && r.chance(0.2)) changes.push({ key: r.pick(written), value: null })
      else {
        const key = written.length > 0 && r.chance(0.3) ? Uint8Array.from(r.pick(written).subarray(0, opts.keyLength - 1)).fill(r.int(256), opts.keyLength - 1) : r.bytes(opts.keyLength)
        const sized = key.length === opts.keyLength ? key : Uint8Array.from([...key, r.int(256)])
        written.push(sized)
        changes.push({ key: sized, value: r.bytes(opts.valueLength()) })
      }
    }
    await batchUpdate(trie, changes)
    for (const key of [...written.slice(-40), r.bytes(opts.keyLength)]) {
      const fast = getSync(trie, key)
      if (fast === notWalked) continue
      walked++
      expect(fast, `round ${round}`).toEqual(await libraryGet(trie, key))
    }
  }
  return walked
}

describe.skipIf(stockEngine)('getSync', () => {
  it('reads what findPath reads in hashed-key tries (state and storage tries)', async () => {
    expect(await compare({ hashed: true, keyLength: 20, valueLength: () => 70, seed: 11, rounds: 60 })).toBeGreaterThan(1000)
    const r = seededRandom(12)
    expect(await compare({ hashed: true, keyLength: 32, valueLength: () => 1 + r.int(33), seed: 13, rounds: 60 })).toBeGreaterThan(1000)
  })

  it('reads what findPath reads with short keys and values, where nodes are inlined in their parent', async () => {
    const r = seededRandom(14)
    expect(await compare({ hashed: false, keyLength: 2, valueLength: () => 1 + r.int(3), seed: 15, rounds: 80 })).toBeGreaterThan(1000)
    expect(await compare({ hashed: false, keyLength: 3, valueLength: () => 1 + r.int(40), seed: 16, rounds: 60 })).toBeGreaterThan(1000)
  })

  it('leaves to the library a root whose nodes are not stored, and a database with a checkpoint open', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    await batchUpdate(trie, [{ key: Uint8Array.of(1), value: Uint8Array.of(2) }])
    expect(getSync(trie, Uint8Array.of(1))).toEqual(Uint8Array.of(2))
    trie.checkpoint()
    expect(syncTrieDb(trie['_db'])).toBeUndefined()
    expect(getSync(trie, Uint8Array.of(1))).toBe(notWalked)
    await trie.commit()
    trie.root(new Uint8Array(32).fill(7))
    expect(getSync(trie, Uint8Array.of(1))).toBe(notWalked)
  })

  it.each([
    ['a Map', () => new Map()],
    ['a PackedNodeStore (keys by their packed bytes)', () => new PackedNodeStore()],
  ])('reads and writes the same entries with the same statistics as CheckpointDB and MapDB over %s', async (_, store) => {
    const viaLibrary = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB(store() as Map<string, Uint8Array>), valueEncoding: ValueEncoding.Bytes })
    const db = viaLibrary['_db'] as unknown as { get: unknown }
    // Its own `get`: syncTrieDb refuses it, so batchUpdate awaits the library's methods.
    db.get = db.get
    const viaSync = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB(store() as Map<string, Uint8Array>), valueEncoding: ValueEncoding.Bytes })
    expect(syncTrieDb(viaSync['_db'])).toBeDefined()
    expect(syncTrieDb(viaLibrary['_db'])).toBeUndefined()
    const r = seededRandom(17)
    for (let round = 0; round < 20; round++) {
      const changes = Array.from({ length: 1 + r.int(10) }, () => ({ key: r.bytes(32), value: r.bytes(40) }))
      await batchUpdate(viaLibrary, changes)
      await batchUpdate(viaSync, changes)
    }
    expect(viaSync.root()).toEqual(viaLibrary.root())
    const stored = (t: MerklePatriciaTrie) => [...(t['_db'] as unknown as { db: MapDB<string, Uint8Array> }).db._database].sort(([a], [b]) => (a < b ? -1 : 1))
    expect(stored(viaSync)).toEqual(stored(viaLibrary))
    const stats = (t: MerklePatriciaTrie) => (t['_db'] as unknown as { stats(reset: boolean): unknown }).stats(false)
    expect(stats(viaSync)).toEqual(stats(viaLibrary))
    // And every key reads back the same through either trie.
    for (const [key] of stored(viaLibrary)) {
      const bytes = Buffer.from(key, 'hex')
      expect(syncTrieDb(viaSync['_db'])!.get(bytes)).toEqual(await viaLibrary['_db'].get(bytes))
    }
  })
})

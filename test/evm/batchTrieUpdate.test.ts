import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { describe, expect, it } from 'vitest'
import './installEngine.js'
import { seededRandom } from './generators.js'
import { batchUpdate } from '../../src/evm/batchTrieUpdate.js'

const random = seededRandom

/**
 * Random batches (new keys, changed values, deletes of present and absent
 * keys) applied with batchUpdate to one trie and with put/del, one key at a
 * time, to another: the roots must match after every batch, and every key
 * must read back from the batched trie's stored nodes.
 */
async function compare(opts: { hashed: boolean; keyLength: number; valueLength: () => number; seed: number; batches: number }) {
  const r = random(opts.seed)
  const batched = new MerklePatriciaTrie({ useKeyHashing: opts.hashed })
  const sequential = new MerklePatriciaTrie({ useKeyHashing: opts.hashed })
  const live = new Map<string, Uint8Array>()
  for (let round = 0; round < opts.batches; round++) {
    const keys = [...live.keys()]
    const changes: { key: Uint8Array; value: Uint8Array | null }[] = []
    const size = 1 + r.int(r.int(4) === 0 ? 60 : 12)
    for (let i = 0; i < size; i++) {
      const kind = r.int(10)
      if (kind < 5 || keys.length === 0) changes.push({ key: r.bytes(opts.keyLength), value: r.bytes(opts.valueLength()) })
      else if (kind < 7) changes.push({ key: Buffer.from(keys[r.int(keys.length)]!, 'hex'), value: r.bytes(opts.valueLength()) })
      else if (kind < 9) changes.push({ key: Buffer.from(keys[r.int(keys.length)]!, 'hex'), value: null })
      else if (r.int(2) === 0 || keys.length === 0) changes.push({ key: r.bytes(opts.keyLength), value: null })
      else {
        // A key written back with the value it holds (a flush writes back what was read).
        const key = keys[r.int(keys.length)]!
        changes.push({ key: Buffer.from(key, 'hex'), value: live.get(key)! })
      }
    }
    // Now and then the whole trie goes.
    if (r.int(40) === 0) for (const k of keys) changes.push({ key: Buffer.from(k, 'hex'), value: null })
    await batchUpdate(batched, changes)
    for (const { key, value } of changes) {
      const hex = Buffer.from(key).toString('hex')
      if (value === null) {
        await sequential.del(key)
        live.delete(hex)
      } else {
        await sequential.put(key, value)
        live.set(hex, value)
      }
    }
    expect(Buffer.from(batched.root()).toString('hex'), `batch ${round}`).toBe(Buffer.from(sequential.root()).toString('hex'))
  }
  for (const [hex, value] of live) expect(await batched.get(Buffer.from(hex, 'hex'))).toEqual(value)
  expect(live.size).toBeGreaterThan(0)
}

describe('batchUpdate', () => {
  it('gives the root of one-by-one puts and dels in a hashed-key trie (state and storage tries)', async () => {
    await compare({ hashed: true, keyLength: 20, valueLength: () => 70, seed: 1, batches: 150 })
    const r = random(9)
    await compare({ hashed: true, keyLength: 32, valueLength: () => 1 + r.int(33), seed: 2, batches: 150 })
  })

  it('gives the same root with short keys and values, where small nodes are inlined in their parent', async () => {
    const r = random(5)
    await compare({ hashed: false, keyLength: 2, valueLength: () => 1 + r.int(3), seed: 3, batches: 200 })
    await compare({ hashed: false, keyLength: 3, valueLength: () => 1 + r.int(40), seed: 4, batches: 120 })
  })

  it('stores no node when a batch leaves every key as it is (values written back, absent keys deleted)', async () => {
    const r = random(11)
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    const entries = Array.from({ length: 300 }, () => ({ key: r.bytes(32), value: r.bytes(1 + r.int(32)) }))
    await batchUpdate(trie, entries)
    const before = trie.root()
    const stats = (trie as unknown as { _db: { _stats: { db: { writes: number } } } })._db._stats.db
    const writes = stats.writes
    const unchanged = [
      ...entries.filter((_, i) => i % 7 === 0).map(({ key, value }) => ({ key, value: Uint8Array.from(value) })),
      ...Array.from({ length: 40 }, () => ({ key: r.bytes(32), value: null })),
    ]
    expect(await batchUpdate(trie, unchanged)).toEqual(before)
    expect(stats.writes).toBe(writes)
    // One real change among them: only its path is stored again.
    const changed = await batchUpdate(trie, [...unchanged, { key: entries[1]!.key, value: Uint8Array.of(7) }])
    expect(changed).not.toEqual(before)
    expect(stats.writes - writes).toBeLessThanOrEqual(4)
    expect(await trie.get(entries[1]!.key)).toEqual(Uint8Array.of(7))
  })

  it('leaves the trie as it was when nothing changes (deleting absent keys)', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    await batchUpdate(trie, [{ key: Uint8Array.of(1), value: Uint8Array.of(9, 9) }])
    const before = trie.root()
    expect(await batchUpdate(trie, [{ key: Uint8Array.of(2), value: null }])).toEqual(before)
    expect(await batchUpdate(trie, [])).toEqual(before)
    expect(await batchUpdate(trie, [{ key: Uint8Array.of(1), value: null }])).toEqual(trie.EMPTY_TRIE_ROOT)
  })
})

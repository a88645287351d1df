import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { libraryTrieCheckpoints } from '../../src/evm/trieCheckpoints.js'
import { stockEngine } from './installEngine.js'

/*
 * trie-checkpoints (src/evm/trieCheckpoints.ts) closes a nested checkpoint's
 * commit and any revert without the lock and the awaits; a trie must end up
 * where the library's own methods leave it, for any sequence of puts, deletes,
 * checkpoints, commits and reverts, the last commit (a database write) included.
 */

const proto = MerklePatriciaTrie.prototype as unknown as { commit(): Promise<void>; revert(): Promise<void>; __devnetTrieCheckpoints?: boolean }

function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

type Op = { kind: 'put' | 'del' | 'checkpoint' | 'commit' | 'revert'; key: number; value: number }

function script(seed: number): Op[] {
  const next = random(seed)
  const ops: Op[] = []
  let depth = 0
  for (let i = 0; i < 300; i++) {
    const r = next()
    const key = Math.floor(next() * 40)
    const value = Math.floor(next() * 1000)
    if (r < 0.2) {
      ops.push({ kind: 'checkpoint', key, value })
      depth++
    } else if (r < 0.3 && depth > 0) {
      ops.push({ kind: 'commit', key, value })
      depth--
    } else if (r < 0.38 && depth > 0) {
      ops.push({ kind: 'revert', key, value })
      depth--
    } else ops.push({ kind: r < 0.9 ? 'put' : 'del', key, value })
  }
  while (depth-- > 0) ops.push({ kind: 'commit', key: 0, value: 0 })
  return ops
}

/** Runs `ops` on a fresh trie with `methods` as its commit and revert; the roots after each step and the final reads. */
async function run(ops: Op[], methods: { commit(): Promise<void>; revert(): Promise<void> }) {
  const trie = new MerklePatriciaTrie()
  const t = trie as unknown as { commit(): Promise<void>; revert(): Promise<void> }
  t.commit = methods.commit
  t.revert = methods.revert
  const roots: string[] = []
  const key = (k: number) => Uint8Array.of(k, k * 7)
  for (const op of ops) {
    if (op.kind === 'put') await trie.put(key(op.key), Uint8Array.of(op.value >> 8, op.value & 255, 1))
    else if (op.kind === 'del') await trie.del(key(op.key))
    else if (op.kind === 'checkpoint') trie.checkpoint()
    else if (op.kind === 'commit') await trie.commit()
    else await trie.revert()
    roots.push(bytesToHex(trie.root()))
  }
  const reads: (string | null)[] = []
  for (let k = 0; k < 40; k++) {
    const v = await trie.get(key(k))
    reads.push(v === null ? null : bytesToHex(v))
  }
  return { roots, reads, checkpoints: trie.hasCheckpoints() }
}

describe.skipIf(stockEngine)('trie checkpoints', () => {
  it('is installed', () => {
    expect(proto.__devnetTrieCheckpoints).toBe(true)
  })

  it('leaves every root and value where the library does, over random nested checkpoints', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const ops = script(seed)
      const ours = await run(ops, { commit: proto.commit, revert: proto.revert })
      const theirs = await run(ops, { commit: libraryTrieCheckpoints.commit!, revert: libraryTrieCheckpoints.revert! })
      expect(ours, `seed ${seed}`).toEqual(theirs)
    }
  })

  it('waits for the lock like the library when another operation holds it', async () => {
    const trie = new MerklePatriciaTrie()
    trie.checkpoint()
    trie.checkpoint()
    await trie.put(Uint8Array.of(1), Uint8Array.of(2))
    const lock = (trie as unknown as { _lock: { acquire(): Promise<boolean>; release(): void } })._lock
    await lock.acquire()
    let committed = false
    const commit = trie.commit().then(() => (committed = true))
    await Promise.resolve()
    await Promise.resolve()
    expect(committed).toBe(false)
    lock.release()
    await commit
    expect(committed).toBe(true)
    await trie.commit()
    expect(bytesToHex((await trie.get(Uint8Array.of(1)))!)).toBe('0x02')
    expect(trie.hasCheckpoints()).toBe(false)
  })
})

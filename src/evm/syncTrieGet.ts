import { patchActive } from './patches/registry.js'
import { syncTrieDb } from './syncTrieDb.js'
import { decodeStoredNode } from './trieNodeCodec.js'
import { nibbles } from './triePath.js'

/*
 * MerklePatriciaTrie.get as one synchronous walk, when the trie's database
 * answers synchronously (syncTrieDb.ts): ethereumjs's findPath walks through
 * its WalkController, a task queue with a promise and a decoded node object
 * per node, to follow one path (a slot a transaction reads for the first
 * time, and on a fork each slot and tombstone checked before asking the
 * upstream: ~25 µs a walk). The walk here follows the same path over the same
 * stored nodes: a branch's child at the key's next nibble, an extension or a
 * leaf when its path matches the key's next nibbles; the value is the leaf's
 * (or, at the key's end, the branch's) as ethereumjs returns it, and null
 * where the path ends.
 */

/** The trie could not be walked here (a node not stored, a database that is not synchronous): ask the library. */
export const notWalked = Symbol('not walked')

type TrieInternals = {
  _db: unknown
  root(): Uint8Array
  appliedKey(key: Uint8Array): Uint8Array
  _getDbKey(key: Uint8Array): Uint8Array
}

/** What `trie.get(key)` resolves to, or `notWalked`. */
export function getSync(trie: unknown, key: Uint8Array): Uint8Array | null | typeof notWalked {
  if (!patchActive('sync-trie-get')) return notWalked
  const t = trie as TrieInternals
  const db = syncTrieDb(t._db)
  if (db === undefined) return notWalked
  const path = nibbles(t.appliedKey(key))
  let ref: unknown = t.root()
  let at = 0
  for (;;) {
    let raw: unknown[]
    if (Array.isArray(ref)) raw = ref
    else {
      const bytes = db.get(t._getDbKey(ref as Uint8Array))
      if (bytes === undefined) return notWalked
      raw = decodeStoredNode(bytes)
    }
    if (raw.length === 17) {
      if (at === path.length) return valueOf(raw[16])
      const child = raw[path[at]!] as Uint8Array | unknown[]
      if (child instanceof Uint8Array && child.length === 0) return null
      at++
      ref = child
      continue
    }
    if (raw.length !== 2) return notWalked
    const nodePath = nibbles(raw[0] as Uint8Array)
    const flag = nodePath[0]!
    const start = flag & 1 ? 1 : 2
    for (let i = start; i < nodePath.length; i++, at++) if (nodePath[i] !== path[at]) return null
    if (flag >= 2) return at === path.length ? (raw[1] as Uint8Array) : null
    ref = raw[1]
  }
}

/** A branch's value slot: null when empty, as ethereumjs's BranchMPTNode.value(). */
const valueOf = (item: unknown) => (item instanceof Uint8Array && item.length > 0 ? item : null)

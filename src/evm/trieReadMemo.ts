import { CheckpointDB, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { ValueEncoding, equalsBytes } from '@ethereumjs/util'
import { hexKey } from './hexKeys.js'
import { getSync, notWalked } from './syncTrieGet.js'
import { flat } from './trieStorage.js'

/*
 * Memos of state reads that cannot go stale, applied once to every trie and
 * trie database in the process by the patch registry (patches/registry.ts).
 *
 * Trie reads, keyed by the trie's root:
 *
 * A trie's root is the hash of its content, so what a key reads under a
 * given root never changes. ethereumjs's state caches forget every value read
 * inside a checkpoint when the checkpoint is reverted, and eth_call and
 * eth_simulateV1 run each request inside one that is reverted: every request
 * read every account, slot and system contract from the trie again (a walk of
 * decoded, hashed nodes, ~0.1 ms each). The memo survives those reverts and
 * is correct for any root, old or new, shared or copied.
 *
 * An empty trie's reads answer nothing at once: ethereumjs would look up
 * its root node, which is never stored, and throw and catch an error for
 * every slot read of an account without storage.
 *
 * Only lookups that found every node on their path are remembered: a read
 * that stopped at a missing node (a root whose nodes are not all stored) goes
 * to the trie every time, as before.
 */
// ~250 bytes an entry (flat key and value): ≤ ~12 MB. Only the reads at roots still in use (latest,
// pending, recent blocks) are read again, a few hundred entries per root at most.
const maxEntries = 50_000

/*
 * Database reads, per database: every key of a trie database is the hash of
 * its value (a trie node, or a contract's code under its code hash), so a key
 * read once always reads the same. ethereumjs stores values as hex and
 * decodes them into a new array on every read; the memo keeps the decoded
 * array. Besides the decoding this keeps a contract's code the same array
 * from request to request, which the jump-destination memo (speedups.ts)
 * is keyed on. Values still inside an open checkpoint are not remembered.
 * A database that stores bytes (every state's, see trieStorage.ts) already
 * answers both ways and is not memoized: the memo would be a second copy of it.
 */
const maxDbEntries = 50_000

type Get = (key: Uint8Array, throwIfMissing?: boolean) => Promise<Uint8Array | null>
const prototype = MerklePatriciaTrie.prototype as unknown as {
  get: Get
  __devnetReadMemo?: boolean
}

export function applyTrieReadMemo() {
  if (prototype.__devnetReadMemo) return
  const original = prototype.get
  const memo = new Map<string, Uint8Array | null>()
  prototype.get = async function (this: MerklePatriciaTrie, key, throwIfMissing = false) {
    const root = this.root()
    // An empty trie holds nothing; ethereumjs would look its root node up, miss it and throw and catch an error.
    if (equalsBytes(root, this.EMPTY_TRIE_ROOT)) return null
    const opts = (this as unknown as { _opts: { useKeyHashing?: boolean; keyPrefix?: Uint8Array } })._opts
    // hexKey: the library's bytesToUnprefixedHex, flat and in one native step (a byte at a time there).
    const id = `${hexKey(root)}${opts.useKeyHashing ? 'h' : 'r'}${opts.keyPrefix ? hexKey(opts.keyPrefix) : ''}:${hexKey(key)}`
    const known = memo.get(id)
    if (known !== undefined) return known
    // One synchronous walk when the database allows it (syncTrieGet.ts); else the library's.
    let value = getSync(this, key)
    if (value === notWalked)
      try {
        value = await original.call(this, key, true)
      } catch {
        return original.call(this, key, throwIfMissing)
      }
    if (memo.size >= maxEntries) memo.delete(memo.keys().next().value!)
    // Kept as a key: flattened, or its ~130 cons cells would be kept too (trieStorage.ts).
    memo.set(flat(id), value)
    return value
  }
  prototype.__devnetReadMemo = true
}

type DbGet = (key: Uint8Array) => Promise<Uint8Array | undefined>
const dbPrototype = CheckpointDB.prototype as unknown as {
  get: DbGet
  __devnetReadMemo?: boolean
}

export function applyTrieDbReadMemo() {
  if (dbPrototype.__devnetReadMemo) return
  const original = dbPrototype.get
  // Per backing store: shallow copies of a MapDB wrap the same Map.
  const memos = new WeakMap<object, Map<string, Uint8Array>>()
  dbPrototype.get = async function (this: CheckpointDB, key) {
    // A database of bytes hands out the stored array itself: nothing to decode, always the same array.
    if ((this as unknown as { valueEncoding: ValueEncoding }).valueEncoding === ValueEncoding.Bytes) return original.call(this, key)
    const backing = this.db as unknown as { _database?: object }
    const store = backing._database ?? backing
    let memo = memos.get(store)
    if (memo === undefined) memos.set(store, (memo = new Map()))
    const keyHex = hexKey(key)
    // A value written or deleted inside an open checkpoint is the checkpoint's to answer.
    const pending = this.checkpoints.length > 0 && this.checkpoints.some((checkpoint) => checkpoint.keyValueMap.has(keyHex))
    const known = pending ? undefined : memo.get(keyHex)
    if (known !== undefined) return known
    const value = await original.call(this, key)
    if (value !== undefined && !pending) {
      if (memo.size >= maxDbEntries) memo.delete(memo.keys().next().value!)
      memo.set(flat(keyHex), value)
    }
    return value
  }
  dbPrototype.__devnetReadMemo = true
}

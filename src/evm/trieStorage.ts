import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { MapDB, ValueEncoding } from '@ethereumjs/util'
import { PackedNodeStore } from './packedNodeStore.js'

/*
 * How trie nodes are kept in memory. Every trie node, storage node and
 * contract code of a state lives in one MapDB (every copy of the state
 * shares its Map) and is never deleted, so old roots stay readable: what
 * one entry costs is paid for every node of every block. Two fixes to
 * @ethereumjs (util/mpt 10.1), applied once by the patch registry (patches/registry.ts); neither
 * changes a key, a value's content or a root.
 */

/*
 * 1. Hex strings that are kept are stored flat.
 *
 * On Node 20 (no `Uint8Array.prototype.toHex`) @ethereumjs turns bytes into
 * hex one byte at a time (`hex += table[byte]`), which V8 represents as a
 * rope: one 32-byte cons cell per byte appended, never flattened unless
 * something reads the characters (hashing it for a Map key does not). A
 * 32-byte trie key kept as a Map key costs ~1 kB instead of ~100 bytes, a
 * 250-byte node kept as hex ~8 kB instead of ~500 bytes. Reading one
 * character makes V8 flatten the string in place; the next GC drops the cells.
 */

/** `s`, flattened in place: for a string built by concatenation that is kept (a Map key, a stored value). */
export function flat<S extends string>(s: S): S {
  s.charCodeAt(0)
  return s
}

const mapDb = MapDB.prototype as unknown as {
  put(key: string | Uint8Array, value: unknown): Promise<void>
  __devnetFlat?: boolean
}

export function applyFlatMapDbStrings() {
  if (mapDb.__devnetFlat) return
  const original = mapDb.put
  mapDb.put = function (this: MapDB<string, string | Uint8Array>, key, value) {
    if (typeof key === 'string') flat(key)
    if (typeof value === 'string') flat(value)
    return original.call(this, key, value)
  }
  mapDb.__devnetFlat = true
}

/*
 * 2. A trie's copies store nodes the way the trie does.
 *
 * A trie created without a database stores node bytes as they are, but its
 * `shallowCopy` passes the database on and so falls back to storing hex
 * strings: the storage tries and the state copies every VM runs on (all
 * writes of every block) stored each node as hex, twice its size, and every
 * read decoded it into a new array again. The copy now keeps the original's
 * encoding. Readers accept either (CheckpointDB decodes strings, returns
 * bytes as stored), so a database holding both stays readable.
 */
const trie = MerklePatriciaTrie.prototype as unknown as {
  shallowCopy(includeCheckpoints?: boolean, opts?: object): MerklePatriciaTrie
  _db: { valueEncoding: ValueEncoding }
  __devnetEncoding?: boolean
}

export function applyTrieCopyEncoding() {
  if (trie.__devnetEncoding) return
  const original = trie.shallowCopy
  trie.shallowCopy = function (this: typeof trie, includeCheckpoints = true, opts) {
    return original.call(this, includeCheckpoints, { valueEncoding: this._db.valueEncoding, ...opts })
  }
  trie.__devnetEncoding = true
}

/*
 * 3. The node Map is packed (packedNodeStore.ts).
 */

/** Moves the nodes of `state`'s trie database into a PackedNodeStore; every copy made afterwards shares it. */
export function packNodeStore(state: MerkleStateManager): void {
  const db = (state as unknown as { _trie: { database(): { db: { _database?: unknown } } } })._trie.database().db
  const map = db._database
  if (map instanceof PackedNodeStore) return
  if (!(map instanceof Map)) throw new Error('unexpected @ethereumjs/statemanager layout: the trie database is not a MapDB')
  const packed = new PackedNodeStore()
  for (const [key, value] of map as Map<string, Uint8Array | string>) packed.set(key, value)
  db._database = packed
}

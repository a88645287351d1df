import { CheckpointDB } from '@ethereumjs/mpt'
import { MapDB, ValueEncoding, bytesToUnprefixedHex, unprefixedHexToBytes } from '@ethereumjs/util'
import { PackedNodeStore } from './packedNodeStore.js'
import { patchActive } from './patches/registry.js'
import { flat } from './trieStorage.js'

/*
 * A trie database read and written without promises, when it is what every
 * devnet state's is: a CheckpointDB with no checkpoint open and no cache,
 * over a MapDB (whose Map may be a PackedNodeStore, trieStorage.ts), storing
 * bytes. Then CheckpointDB.get is MapDB.get is a Map lookup (a hex string
 * stored by an older copy decoded as CheckpointDB decodes it), and
 * CheckpointDB.batch of puts is MapDB.put per node: Map sets. The same
 * entries are read and written, with the same statistics counted; only the
 * promises of the five async layers per read and two per write are gone.
 *
 * A 32-byte key of a PackedNodeStore is looked up and stored by its packed
 * form (its bytes as a one-byte string) directly: the hex key MapDB gets is
 * built a character at a time (a rope of 64 cells, ~2 KB, per node read or
 * written) only for the store to pack it back into those bytes.
 *
 * Anything else (an open checkpoint, a cache, another backing store, a
 * method replaced on the objects, hex storage, stock mode) returns undefined,
 * and the caller goes through the database's own async methods.
 */

type Stats = { cache: { reads: number; hits: number; writes: number }; db: { reads: number; hits: number; writes: number } }
type CheckpointInternals = {
  checkpoints: unknown[]
  _cache: unknown
  valueEncoding: ValueEncoding
  _stats: Stats
  db: MapDB<string, Uint8Array | string>
}

const checkpointProto = CheckpointDB.prototype as unknown as Record<string, unknown>
const mapProto = MapDB.prototype as unknown as Record<string, unknown>

/** Synchronous get and batched puts on `db`, or undefined when it is not a database they stand in for exactly. */
export function syncTrieDb(db: unknown): { get(key: Uint8Array): Uint8Array | undefined; putAll(ops: readonly { key: Uint8Array; value: Uint8Array }[]): void } | undefined {
  if (!(db instanceof CheckpointDB) || !patchActive('sync-trie-db')) return undefined
  const c = db as unknown as CheckpointInternals & Record<string, unknown>
  if (c.checkpoints.length !== 0 || c._cache !== undefined || c.valueEncoding !== ValueEncoding.Bytes) return undefined
  if (Object.hasOwn(c, 'get') || Object.hasOwn(c, 'batch') || Object.getPrototypeOf(c) !== checkpointProto) return undefined
  const backing = c.db as unknown as Record<string, unknown>
  if (Object.getPrototypeOf(backing) !== mapProto || Object.hasOwn(backing, 'get') || Object.hasOwn(backing, 'put') || Object.hasOwn(backing, 'batch'))
    return undefined
  const map = c.db._database
  const packed = map instanceof PackedNodeStore ? map : undefined
  return {
    get(key) {
      const value = packed !== undefined && key.length === 32 ? packed.getPacked(packedKey(key)) : map.get(bytesToUnprefixedHex(key))
      c._stats.db.reads += 1
      if (value === undefined) return undefined
      c._stats.db.hits += 1
      return value instanceof Uint8Array ? value : unprefixedHexToBytes(value)
    },
    putAll(ops) {
      for (const op of ops) {
        c._stats.db.writes += 1
        if (packed !== undefined && op.key.length === 32) packed.setPacked(packedKey(op.key), op.value)
        // As MapDB.put, patched to keep its key flat (trieStorage.ts).
        else map.set(flat(bytesToUnprefixedHex(op.key)), op.value)
      }
    },
  }
}

/** What PackedNodeStore makes of `key`'s hex (packKey): its bytes as a one-byte string. */
const packedKey = (key: Uint8Array) => String.fromCharCode.apply(null, key as unknown as number[])

/*
 * The Map behind the state's MapDB (trieStorage.ts), stored densely.
 *
 * Every trie node, storage node and contract code of every state ever
 * reached lives in that one Map and is never deleted (old roots stay
 * readable), so the cost of one entry is paid for every node of every block.
 * As a plain Map<64-char hex, Uint8Array> one node cost ~500 bytes for ~150
 * bytes of content: an 80-byte key string, a Uint8Array and an ArrayBuffer
 * object on the heap, a backing-store record and a malloc'd block outside it.
 *
 * Here a key is kept as its bytes in a one-byte string (32 characters for a
 * node hash, half the hex), and a value is copied into large shared slabs,
 * prefixed by its length; the index maps the key to the value's position (a
 * small integer V8 stores inline in the Map). A read returns a view of the
 * slab: the same bytes that were written. Anything that is not a hex key with
 * a byte or hex-string value (not expected from the trie) is kept as given in
 * a plain Map beside it.
 *
 * It is a Map (fixtures reach it as one, see src/node/fixture/state.ts) whose
 * methods all go through the packed index. A fixture load attaches its state
 * as read-only tables (nodeTable.ts) that reads consult after the index: an
 * entry written since (or before) shadows a table's, and a deleted table
 * entry is remembered as deleted.
 */
import type { NodeTable } from './nodeTable.js'

const SLAB_SIZE = 1 << 20
/** A value larger than this gets a slab of its own. */
const LARGE = SLAB_SIZE >> 2
const HEADER = 4
/** Table entries per table in the numbering of `locate` (a table holds fewer). */
const LOCATED_TABLE = 2 ** 32

const HEX_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i
for (let i = 0; i < 6; i++) HEX_VALUE[97 + i] = 10 + i

/** The bytes of lowercase hex `hex` as a one-byte string, or undefined if `hex` is not lowercase hex of whole bytes. */
function packKey(hex: string): string | undefined {
  const n = hex.length
  if (n % 2 !== 0) return undefined
  const codes = new Array<number>(n >> 1)
  for (let i = 0, j = 0; i < n; i += 2, j++) {
    const hi = HEX_VALUE[hex.charCodeAt(i)] ?? -1
    const lo = HEX_VALUE[hex.charCodeAt(i + 1)] ?? -1
    if (hi < 0 || lo < 0) return undefined
    codes[j] = (hi << 4) | lo
  }
  return String.fromCharCode.apply(null, codes)
}

const unpackKey = (key: string) => Buffer.from(key, 'latin1').toString('hex')

/**
 * The packed key of the 32 bytes at `b[at..at+32)` (what `packKey` makes of
 * their hex), for callers that hold keys as bytes: fixture dumps and loads
 * look up and insert a hundred thousand nodes, and the hex string and its
 * packing per key were a quarter of a load.
 */
export const packedKeyOf = (b: Buffer, at: number): string => b.toString('latin1', at, at + 32)

type Stored = Uint8Array | string

export class PackedNodeStore extends Map<string, Stored> {
  /** Packed key → position of the value's length header: slab index × SLAB_SIZE + offset. */
  readonly #index = new Map<string, number>()
  /** Entries that are not a hex key with bytes or hex: kept as given. */
  readonly #other = new Map<string, Stored>()
  readonly #slabs: Uint8Array[] = []
  /** Attached tables, read after the index in the order attached. */
  #tables: NodeTable[] = []
  /** Packed keys deleted while a table may hold them. */
  readonly #deleted = new Set<string>()
  /** The shared slab values go to (-1: none yet) and how much of it is used. */
  #current = -1
  #used = 0

  override get size() {
    let size = this.#index.size + this.#other.size
    this.#forEachTableEntry(() => size++)
    return size
  }

  /** At least `size`, without counting what tables hold under keys held elsewhere too (`size` must look each one up). */
  get sizeBound() {
    return this.#tables.reduce((n, table) => n + table.count, this.#index.size + this.#other.size)
  }

  override get(key: string): Stored | undefined {
    const packed = packKey(key)
    if (packed === undefined) return this.#other.get(key)
    return this.getPacked(packed)
  }

  override has(key: string) {
    const packed = packKey(key)
    return packed === undefined ? this.#other.has(key) : this.hasPacked(packed)
  }

  /**
   * Attaches a table of nodes that reads find after every entry set here
   * (a fixture's state). The same table attached again (equal keys and
   * values: the same fixture loaded twice) is not kept twice. Returns a
   * function that detaches it again (a load that refuses the file after
   * attaching), as long as nothing else was attached since.
   */
  attach(table: NodeTable): () => void {
    if (this.#tables.some((held) => held.equals(table))) return () => {}
    this.#tables.push(table)
    return () => {
      if (this.#tables[this.#tables.length - 1] === table) this.#tables.pop()
    }
  }

  /** The value an attached table holds for `packed`, unless deleted. */
  #fromTables(packed: string): Uint8Array | undefined {
    for (const table of this.#tables) {
      const i = table.find(packed)
      if (i >= 0) return this.#deleted.size > 0 && this.#deleted.has(packed) ? undefined : table.value(i)
    }
    return undefined
  }

  /**
   * Whether an attached table holds `packed` (and it is not deleted), without
   * reading its value: a fixture's table decodes a value on first read, into
   * fresh memory, and a load checks every block's root with `has` (10,000
   * decodes and a page fault each, a third of loading a 10,000-block chain).
   */
  #inTables(packed: string): boolean {
    for (const table of this.#tables) if (table.find(packed) >= 0) return !(this.#deleted.size > 0 && this.#deleted.has(packed))
    return false
  }

  /** Calls `fn` with each table entry that no index entry, earlier table or deletion hides. */
  #forEachTableEntry(fn: (packed: string, value: Uint8Array) => void) {
    this.#tables.forEach((table, t) => {
      for (let i = 0; i < table.count; i++) {
        const packed = table.packedKey(i)
        if (this.#index.has(packed) || this.#deleted.has(packed) || table.find(packed) !== i) continue
        if (this.#tables.slice(0, t).some((earlier) => earlier.find(packed) >= 0)) continue
        fn(packed, table.value(i))
      }
    })
  }

  override set(key: string, value: Stored) {
    const packed = packKey(key)
    const length = value instanceof Uint8Array ? value.length : typeof value === 'string' ? hexLength(value) : undefined
    if (packed === undefined || length === undefined) {
      if (packed !== undefined) this.#index.delete(packed)
      // A table's entry under the same key must not be read instead.
      if (packed !== undefined && this.#inTables(packed)) this.#deleted.add(packed)
      this.#other.set(key, value)
      return this
    }
    if (this.#other.size > 0) this.#other.delete(key)
    // A value written again takes new space; the old bytes stay unused (the trie never rewrites a node).
    this.#index.set(packed, this.#write(value, length))
    return this
  }

  /** Copies `value` (bytes, or hex of `length` bytes) into a slab: the position of its length header. */
  #write(value: Uint8Array | string, length: number) {
    const at = this.#reserve(length)
    const slab = this.#slabs[Math.floor(at / SLAB_SIZE)]!
    const offset = at % SLAB_SIZE
    slab[offset] = length & 0xff
    slab[offset + 1] = (length >>> 8) & 0xff
    slab[offset + 2] = (length >>> 16) & 0xff
    slab[offset + 3] = length >>> 24
    if (typeof value === 'string') Buffer.from(slab.buffer, slab.byteOffset, slab.byteLength).write(value, offset + HEADER, 'hex')
    else slab.set(value, offset + HEADER)
    return at
  }

  /** `get` by a packed key (`packedKeyOf`). */
  getPacked(packed: string): Stored | undefined {
    const at = this.#index.get(packed)
    if (at !== undefined) return this.#read(at)
    if (this.#tables.length > 0) {
      const value = this.#fromTables(packed)
      if (value) return value
    }
    return this.#other.size === 0 ? undefined : this.#other.get(unpackKey(packed))
  }

  /**
   * Where the value of `packed` is held, as a number for `readLocated`
   * (a walk over every node keeps numbers rather than a view per node: the
   * views outlived the young generation and cost a full collection per
   * dump), or -1 when it is not, or not as bytes (then `getPacked` reads it).
   */
  locate(packed: string): number {
    const at = this.#index.get(packed)
    if (at !== undefined) return at
    for (let t = 0; t < this.#tables.length; t++) {
      const i = this.#tables[t]!.find(packed)
      if (i >= 0) return this.#deleted.size > 0 && this.#deleted.has(packed) ? -1 : -2 - (t * LOCATED_TABLE + i)
    }
    return -1
  }

  /**
   * The 32-byte keys set here (an attached table's are not), written into
   * `into` from byte 0, and their places as `locate` gives them, without a
   * lookup per key: a walk over every node of the state reads them all (the
   * lookups by key were a fifth of it; a callback and a byte-by-byte copy
   * per key then a tenth). `into` must have room for every key (`sizeBound`).
   */
  locatedKeys(into: Buffer): { count: number; places: Float64Array } {
    const places = new Float64Array(this.#index.size)
    let count = 0
    this.#index.forEach((at, packed) => {
      if (packed.length !== 32) return
      into.write(packed, count * 32, 32, 'latin1')
      places[count++] = at
    })
    return { count, places }
  }

  /** The value at a place `locate` returned. */
  readLocated(place: number): Uint8Array {
    if (place >= 0) return this.#read(place)
    const n = -2 - place
    return this.#tables[Math.floor(n / LOCATED_TABLE)]!.value(n % LOCATED_TABLE)
  }

  /** Where in the slab `slabOf` last returned that value starts and ends. */
  slabStart = 0
  slabEnd = 0

  /**
   * The slab that holds the value at `place` (from `locate`, >= 0), whose
   * bounds are then `slabStart` and `slabEnd`: a walk over every node reads
   * them in place (a view per node, and the DataView a key comparison makes
   * per buffer, were a tenth of the walk's allocations).
   */
  slabOf(place: number): Uint8Array {
    const slab = this.#slabs[Math.floor(place / SLAB_SIZE)]!
    const offset = place % SLAB_SIZE
    const length = slab[offset]! | (slab[offset + 1]! << 8) | (slab[offset + 2]! << 16) | (slab[offset + 3]! << 24)
    this.slabStart = offset + HEADER
    this.slabEnd = offset + HEADER + (length >>> 0)
    return slab
  }

  /** `has` by a packed key (`packedKeyOf`). */
  hasPacked(packed: string) {
    return (
      this.#index.has(packed) ||
      (this.#tables.length > 0 && this.#inTables(packed)) ||
      (this.#other.size > 0 && this.#other.has(unpackKey(packed)))
    )
  }

  /** `set` of bytes by a packed key (`packedKeyOf`). */
  setPacked(packed: string, value: Uint8Array) {
    if (this.#other.size > 0) this.#other.delete(unpackKey(packed))
    this.#index.set(packed, this.#write(value, value.length))
    return this
  }

  override delete(key: string) {
    const packed = packKey(key)
    let deleted = packed !== undefined && this.#index.delete(packed)
    if (packed !== undefined && this.#inTables(packed)) {
      this.#deleted.add(packed)
      deleted = true
    }
    return this.#other.delete(key) || deleted
  }

  override clear() {
    this.#tables = []
    this.#deleted.clear()
    this.#index.clear()
    this.#other.clear()
    this.#slabs.length = 0
    this.#current = -1
    this.#used = 0
  }

  override *entries(): MapIterator<[string, Stored]> {
    for (const [packed, at] of this.#index) yield [unpackKey(packed), this.#read(at)]
    const fromTables: [string, Stored][] = []
    this.#forEachTableEntry((packed, value) => fromTables.push([unpackKey(packed), value]))
    yield* fromTables
    yield* this.#other.entries()
  }

  override *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key
  }

  override *values(): MapIterator<Stored> {
    for (const [, value] of this.entries()) yield value
  }

  override [Symbol.iterator]() {
    return this.entries()
  }

  override forEach(callback: (value: Stored, key: string, map: Map<string, Stored>) => void, thisArg?: unknown) {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this)
  }

  /** Bytes held in slabs (allocated, used or not). */
  get slabBytes() {
    return this.#slabs.reduce((sum, slab) => sum + slab.byteLength, 0)
  }

  #read(at: number) {
    const slab = this.#slabs[Math.floor(at / SLAB_SIZE)]!
    const offset = at % SLAB_SIZE
    const length = slab[offset]! | (slab[offset + 1]! << 8) | (slab[offset + 2]! << 16) | (slab[offset + 3]! << 24)
    return slab.subarray(offset + HEADER, offset + HEADER + (length >>> 0))
  }

  /** Position of `length` + HEADER free bytes: in the current shared slab, a new one, or a large value's own. */
  #reserve(length: number) {
    const size = length + HEADER
    if (size > LARGE) {
      this.#slabs.push(new Uint8Array(size))
      return (this.#slabs.length - 1) * SLAB_SIZE
    }
    if (this.#current < 0 || this.#used + size > SLAB_SIZE) {
      this.#slabs.push(new Uint8Array(SLAB_SIZE))
      this.#current = this.#slabs.length - 1
      this.#used = 0
    }
    const at = this.#current * SLAB_SIZE + this.#used
    this.#used += size
    return at
  }
}

/** Byte length of `hex` if it is hex of whole bytes (either case), else undefined. */
function hexLength(hex: string): number | undefined {
  if (hex.length % 2 !== 0) return undefined
  for (let i = 0; i < hex.length; i++) {
    const c = hex.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return undefined
  }
  return hex.length >> 1
}

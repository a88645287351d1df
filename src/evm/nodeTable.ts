/*
 * A read-only table of trie nodes taken in one piece: 32-byte keys in one
 * buffer, values as views of another, and an open-addressing index over
 * the keys. A fixture load attaches its whole state as one table to the
 * node store (packedNodeStore.ts) instead of inserting 140,000 entries one
 * by one: the string key, the Map entry and the copy into a slab per node
 * were two thirds of loading a 10,000-block chain, and most of those nodes
 * (old states) are never read again.
 *
 * Lookups take the store's packed key form (one character per byte,
 * packedNodeStore.ts), so a miss in the store's Map costs no conversion.
 */

export class NodeTable {
  readonly count: number
  readonly #keys: Buffer
  readonly #read: (i: number) => Uint8Array
  readonly #content: ArrayBufferView[]
  readonly #slots: Int32Array
  readonly #mask: number

  /**
   * `keys`: `count` keys of 32 bytes; `read(i)`: the value of key `i` (a
   * fixture's are decoded on first read); `content`: what the values are
   * made of (two tables with equal keys and equal content hold the same
   * values). A key given twice is found with its first value.
   */
  constructor(keys: Buffer, count: number, read: (i: number) => Uint8Array, content: ArrayBufferView[]) {
    this.count = count
    if (keys.length !== count * 32) throw new Error(`${keys.length} bytes of keys for ${count} values`)
    this.#keys = keys
    this.#read = read
    this.#content = content
    let size = 1
    while (size < this.count * 2) size *= 2
    this.#slots = new Int32Array(size)
    this.#mask = size - 1
    for (let i = 0; i < this.count; i++) {
      const at = i * 32
      let slot = (keys[at]! | (keys[at + 1]! << 8) | (keys[at + 2]! << 16) | (keys[at + 3]! << 24)) & this.#mask
      let taken = this.#slots[slot]!
      while (taken !== 0 && !this.#sameKey(taken - 1, at)) {
        slot = (slot + 1) & this.#mask
        taken = this.#slots[slot]!
      }
      if (taken === 0) this.#slots[slot] = i + 1
    }
  }

  /** A table of values held one after the other in `values`, value `i` from `offsets[i]` to `offsets[i + 1]`. */
  static of(keys: Buffer, values: Uint8Array, offsets: Int32Array) {
    return new NodeTable(keys, offsets.length - 1, (i) => values.subarray(offsets[i]!, offsets[i + 1]!), [values, offsets])
  }

  #sameKey(i: number, at: number) {
    const keys = this.#keys
    const base = i * 32
    for (let k = 0; k < 32; k++) if (keys[base + k] !== keys[at + k]) return false
    return true
  }

  /** The index of the key packed as `packed` (32 characters, one per byte), or -1. */
  find(packed: string): number {
    if (packed.length !== 32) return -1
    const keys = this.#keys
    const hash = packed.charCodeAt(0) | (packed.charCodeAt(1) << 8) | (packed.charCodeAt(2) << 16) | (packed.charCodeAt(3) << 24)
    for (let slot = hash & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const entry = this.#slots[slot]!
      if (entry === 0) return -1
      const base = (entry - 1) * 32
      let k = 0
      while (k < 32 && keys[base + k] === packed.charCodeAt(k)) k++
      if (k === 32) return entry - 1
    }
  }

  /** The value of key `i`. */
  value(i: number): Uint8Array {
    return this.#read(i)
  }

  /** Key `i`, packed. */
  packedKey(i: number): string {
    return this.#keys.toString('latin1', i * 32, i * 32 + 32)
  }

  /** The keys, 32 bytes each, in one buffer. */
  get keys(): Buffer {
    return this.#keys
  }

  /** Whether `other` holds the same keys and values. */
  equals(other: NodeTable) {
    return (
      other.count === this.count &&
      other.#content.length === this.#content.length &&
      other.#keys.equals(this.#keys) &&
      this.#content.every((part, i) => bytesOf(part).equals(bytesOf(other.#content[i]!)))
    )
  }
}

const bytesOf = (view: ArrayBufferView) => Buffer.from(view.buffer, view.byteOffset, view.byteLength)

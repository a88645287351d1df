import { BranchMPTNode, MerklePatriciaTrie, decodeMPTNode, decodeRawMPTNode } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'

/*
 * Faster encoding and decoding of the trie nodes every state root walks,
 * applied once to @ethereumjs/mpt (10.1) by the patch registry (patches/registry.ts). Neither
 * changes a byte of any node, so no hash or root changes.
 *
 * Computing a state root re-encodes and hashes every branch node on the path
 * of each changed account and slot, and finding that path decodes each node
 * from the database. ethereumjs does both with its general RLP code: encoding
 * a branch builds 18 arrays and concatenates them pairwise, decoding copies
 * the node, then copies each of its 17 items again. Together they were about
 * a sixth of the time of executing and sealing a block of transfers.
 *
 * The fast paths cover the shapes state tries are made of (a branch's
 * children are 32-byte hashes or empty, a leaf or extension is two strings);
 * anything else (a child node short enough to be inlined, a malformed node)
 * goes to ethereumjs's own code.
 */

const EMPTY = new Uint8Array(0)

/** Bytes of the RLP header for a string or list payload of `length` bytes. */
const headerLength = (length: number) => (length < 56 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 4)

function writeHeader(out: Uint8Array, at: number, length: number, offset: 0x80 | 0xc0): number {
  if (length < 56) {
    out[at] = offset + length
    return at + 1
  }
  const bytes = length < 0x100 ? 1 : length < 0x10000 ? 2 : 3
  out[at++] = offset + 55 + bytes
  for (let i = bytes - 1; i >= 0; i--) out[at++] = (length >>> (8 * i)) & 0xff
  return at
}

/** The RLP encoding of `node` when every child is empty or a 32-byte hash; undefined otherwise. */
export function encodeBranch(branches: readonly unknown[], value: Uint8Array | null): Uint8Array | undefined {
  let payload = 0
  for (let i = 0; i < 16; i++) {
    const b = branches[i]
    if (b === null || b === undefined) payload += 1
    else if (b instanceof Uint8Array && (b.length === 0 || b.length === 32)) payload += b.length === 0 ? 1 : 33
    else return undefined
  }
  const v = value ?? EMPTY
  const valueLength = v.length === 1 && v[0]! < 0x80 ? 1 : headerLength(v.length) + v.length
  payload += valueLength
  const out = new Uint8Array(headerLength(payload) + payload)
  let at = writeHeader(out, 0, payload, 0xc0)
  for (let i = 0; i < 16; i++) {
    const b = branches[i] as Uint8Array | null | undefined
    if (!b || b.length === 0) out[at++] = 0x80
    else {
      out[at++] = 0xa0
      out.set(b, at)
      at += 32
    }
  }
  if (v.length === 1 && v[0]! < 0x80) out[at++] = v[0]!
  else {
    at = writeHeader(out, at, v.length, 0x80)
    out.set(v, at)
  }
  return out
}

/** Length of the header of the RLP item at `at` and the length of its payload; undefined for a list or a bad header. */
function readString(data: Uint8Array, at: number): [header: number, length: number] | undefined {
  const first = data[at]
  if (first === undefined) return undefined
  if (first < 0x80) return [0, 1]
  if (first <= 0xb7) return [1, first - 0x80]
  if (first < 0xc0) {
    const bytes = first - 0xb7
    if (bytes > 3 || data[at + 1] === 0) return undefined
    let length = 0
    for (let i = 1; i <= bytes; i++) length = length * 256 + data[at + i]!
    return length < 56 ? undefined : [1 + bytes, length]
  }
  return undefined
}

/**
 * The items of a node in canonical RLP made only of strings (a branch with
 * hashed children, a leaf, an extension with a hashed child), as views into
 * `data`; undefined for anything else, which ethereumjs then decodes.
 */
export function decodeNodeItems(data: Uint8Array): Uint8Array[] | undefined {
  const first = data[0]
  if (first === undefined || first < 0xc0) return undefined
  let at: number
  let end: number
  if (first <= 0xf7) {
    at = 1
    end = 1 + first - 0xc0
  } else {
    const bytes = first - 0xf7
    if (bytes > 3 || data[1] === 0) return undefined
    let length = 0
    for (let i = 1; i <= bytes; i++) length = length * 256 + data[i]!
    if (length < 56) return undefined
    at = 1 + bytes
    end = at + length
  }
  if (end !== data.length) return undefined
  const items: Uint8Array[] = []
  while (at < end) {
    const item = readString(data, at)
    if (!item) return undefined
    const [header, length] = item
    const start = at + header
    at = start + length
    if (at > end) return undefined
    // A single byte below 0x80 must not carry a header (ethereumjs rejects it): leave it to ethereumjs.
    if (header === 1 && length === 1 && data[start]! < 0x80) return undefined
    items.push(length === 0 ? EMPTY : data.subarray(start, at))
  }
  return items.length === 17 || items.length === 2 ? items : undefined
}

type TrieInternals = {
  _db: { get(key: Uint8Array): Promise<Uint8Array | undefined> }
  _getDbKey(key: Uint8Array): Uint8Array
  lookupNode(node: Uint8Array | Uint8Array[]): Promise<unknown>
  __devnetNodeCodec?: boolean
}

const trie = MerklePatriciaTrie.prototype as unknown as TrieInternals
const branch = BranchMPTNode.prototype as unknown as {
  _branches: unknown[]
  _value: Uint8Array | null
  serialize(): Uint8Array
}

export function applyTrieNodeCodec() {
  if (trie.__devnetNodeCodec) return
  const lookupNode = trie.lookupNode
  trie.lookupNode = async function (this: TrieInternals, node) {
    if (Array.isArray(node)) return lookupNode.call(this, node)
    const value = (await this._db.get(this._getDbKey(node))) ?? null
    // ethereumjs's path (and its 'Missing node in DB' error, which callers test for).
    if (value === null || !(value instanceof Uint8Array)) return lookupNode.call(this, node)
    const items = decodeNodeItems(value)
    return items ? decodeRawMPTNode(items) : decodeMPTNode(value)
  }

  const serialize = branch.serialize
  branch.serialize = function (this: typeof branch) {
    return encodeBranch(this._branches, this._value) ?? serialize.call(this)
  }
  trie.__devnetNodeCodec = true
}

/** A stored node's raw items: the fast decoder's views, else RLP's (the few shapes it leaves to ethereumjs). */
export const decodeStoredNode = (bytes: Uint8Array): unknown[] => decodeNodeItems(bytes) ?? (RLP.decode(Uint8Array.from(bytes)) as unknown[])

/** ethereumjs's encoding of a node, for tests that compare both. */
export const referenceEncode = (raw: unknown[]) => RLP.encode(raw as never)

import { RLP } from '@ethereumjs/rlp'

/**
 * RLP encoding in one allocation, installed as `RLP.encode` (every
 * @ethereumjs package encodes through that namespace object).
 *
 * The library's encoder builds each item's length prefix with
 * `Uint8Array.from`, turns lengths into hex strings and back, and copies
 * every level of a nested list again through a variadic `concatBytes`: a
 * trie node, an account or a transaction allocated a dozen arrays. Encoding
 * was a tenth of eth_simulateV1 (transaction and receipt tries, tx hashes,
 * accounts) and a twentieth of eth_call (accounts put back during a call).
 * This encoder measures the whole item first and writes it into one array.
 * Its output is byte for byte the library's: byte arrays and nested lists
 * take the fast path; any other scalar (strings, numbers, bigints, null)
 * is encoded by the library's own encoder and copied in.
 */

type Input = Uint8Array | Input[] | string | number | bigint | null | undefined

const libraryEncode = RLP.encode as (input: Input) => Uint8Array

/** Bytes a length prefix takes for a payload of `length`. */
export const prefixSize = (length: number) => (length < 56 ? 1 : 1 + byteLength(length))

function byteLength(n: number) {
  let bytes = 0
  while (n > 0) {
    bytes++
    n = Math.floor(n / 256)
  }
  return bytes
}

/** Encodings of the scalars the library encodes, kept between measuring and writing. */
type Others = Map<unknown, Uint8Array>

function measure(input: Input, others: { map?: Others }): number {
  if (input instanceof Uint8Array) {
    if (input.length === 1 && input[0]! < 0x80) return 1
    return prefixSize(input.length) + input.length
  }
  if (Array.isArray(input)) {
    const payload = payloadSize(input, others)
    return prefixSize(payload) + payload
  }
  const encoded = libraryEncode(input)
  ;(others.map ??= new Map()).set(input, encoded)
  return encoded.length
}

function payloadSize(list: Input[], others: { map?: Others }) {
  let size = 0
  for (let i = 0; i < list.length; i++) size += measure(list[i], others)
  return size
}

/** Writes the length prefix of a string (`offset` 0x80) or a list (0xc0) of `length` bytes at `pos`; returns the next offset. */
export function writePrefix(out: Uint8Array, pos: number, length: number, offset: number): number {
  if (length < 56) {
    out[pos] = offset + length
    return pos + 1
  }
  const bytes = byteLength(length)
  out[pos] = offset + 55 + bytes
  for (let i = bytes; i >= 1; i--) {
    out[pos + i] = length & 0xff
    length = Math.floor(length / 256)
  }
  return pos + 1 + bytes
}

function write(input: Input, out: Uint8Array, pos: number, others: { map?: Others }): number {
  if (input instanceof Uint8Array) {
    if (input.length === 1 && input[0]! < 0x80) {
      out[pos] = input[0]!
      return pos + 1
    }
    pos = writePrefix(out, pos, input.length, 0x80)
    out.set(input, pos)
    return pos + input.length
  }
  if (Array.isArray(input)) {
    pos = writePrefix(out, pos, payloadSize(input, others), 0xc0)
    for (let i = 0; i < input.length; i++) pos = write(input[i], out, pos, others)
    return pos
  }
  const encoded = others.map!.get(input)!
  out.set(encoded, pos)
  return pos + encoded.length
}

export function encode(input: Input): Uint8Array {
  // The library hands a single byte below 0x80 back as the same array.
  if (input instanceof Uint8Array && input.length === 1 && input[0]! < 0x80) return input
  if (!(input instanceof Uint8Array) && !Array.isArray(input)) return libraryEncode(input)
  const others: { map?: Others } = {}
  const out = new Uint8Array(measure(input, others))
  write(input, out, 0, others)
  return out
}

let applied = false

export function applyRlpEncode() {
  if (applied) return
  applied = true
  ;(RLP as { encode: typeof encode }).encode = encode
}

export { libraryEncode }

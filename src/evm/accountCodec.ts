import { digitOf as hexValue } from './hexKeys.js'

/*
 * The RLP of a state account, [nonce, balance, storageRoot, codeHash],
 * written straight into one array. Account.serialize (ethereumjs) builds it
 * from a dozen small arrays (each integer to hex and back, a length prefix
 * per item, two concatenations); the account cache serializes on every
 * putAccount, five or six times per ETH transfer.
 */

// byteLength then writeInteger ask for the hex of the same large integer: formatted once.
let lastLarge = -1n
let lastHex = ''
function hexOf(value: bigint): string {
  if (value !== lastLarge) {
    lastLarge = value
    lastHex = value.toString(16)
  }
  return lastHex
}

/** Bytes of `value`'s big-endian form without leading zeroes (0 has none). */
export function byteLength(value: bigint): number {
  if (value < 0x20000000000000n) {
    let n = Number(value)
    let length = 0
    while (n > 0) {
      length++
      n = Math.floor(n / 256)
    }
    return length
  }
  return (hexOf(value).length + 1) >> 1
}

/** Writes the RLP of the unsigned integer `value` (`length` bytes) at `at`; returns the next offset. */
export function writeInteger(out: Uint8Array, at: number, value: bigint, length: number): number {
  if (length === 0) {
    out[at] = 0x80
    return at + 1
  }
  if (length === 1 && value < 0x80n) {
    out[at] = Number(value)
    return at + 1
  }
  out[at++] = 0x80 + length
  if (value < 0x20000000000000n) {
    let n = Number(value)
    for (let i = at + length - 1; i >= at; i--) {
      out[i] = n % 256
      n = Math.floor(n / 256)
    }
  } else {
    const hex = hexOf(value)
    // An odd number of digits: the first byte is the first digit alone.
    const odd = hex.length & 1
    let i = 0
    if (odd) out[at + i++] = hexValue[hex.charCodeAt(0)]!
    for (let c = odd; i < length; i++, c += 2) out[at + i] = (hexValue[hex.charCodeAt(c)]! << 4) | hexValue[hex.charCodeAt(c + 1)]!
  }
  return at + length
}

/** Bytes the RLP of an integer of `length` bytes takes: a byte below 0x80 is its own encoding. */
export function itemLength(value: bigint, length: number): number {
  return length === 1 && value < 0x80n ? 1 : 1 + length
}

/**
 * RLP of a state account, byte for byte what ethereumjs's Account.serialize
 * gives; undefined when a field is out of what a state account holds (a
 * negative integer, a root or hash not 32 bytes), for the caller to leave to
 * ethereumjs.
 */
export function encodeAccount(nonce: bigint, balance: bigint, storageRoot: Uint8Array, codeHash: Uint8Array): Uint8Array | undefined {
  if (nonce < 0n || balance < 0n || storageRoot.length !== 32 || codeHash.length !== 32) return undefined
  const nonceLength = byteLength(nonce)
  const balanceLength = byteLength(balance)
  if (nonceLength > 55 || balanceLength > 55) return undefined
  const payload = itemLength(nonce, nonceLength) + itemLength(balance, balanceLength) + 66
  // The payload is at least 68 bytes (two 33-byte strings), at most 178: a two-byte list header.
  const out = new Uint8Array(2 + payload)
  out[0] = 0xf8
  out[1] = payload
  let at = writeInteger(out, 2, nonce, nonceLength)
  at = writeInteger(out, at, balance, balanceLength)
  out[at++] = 0xa0
  out.set(storageRoot, at)
  at += 32
  out[at++] = 0xa0
  out.set(codeHash, at)
  return out
}

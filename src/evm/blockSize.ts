import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { patchActive } from './patches/registry.js'

/**
 * A block's size, the length of its RLP encoding, without encoding it:
 * `block.serialize().length` builds the header's raw fields and the whole
 * body (every transaction's bytes copied into one array) to read one number,
 * a few percent of a 100-call eth_simulateV1. The encoding is the list
 * [header, transactions, uncles, withdrawals?]: the header's own encoding,
 * each typed transaction as a byte string of its serialized form (a legacy
 * one as its list, which its serialized form is), each uncle's encoding, and
 * the withdrawals encoded as the block encodes them. Transactions keep their
 * serialized bytes (serialized-memo), so this reads lengths. A caller that
 * has encoded the header already (to hash it) passes its encoding.
 */
export function blockSize(block: Block, encodedHeader?: Uint8Array): number {
  if (!patchActive('block-size')) return block.serialize().length
  const header = (encodedHeader ?? block.header.serialize()).length
  let transactions = 0
  for (const tx of block.transactions) {
    const bytes = tx.serialize()
    transactions += tx.type === 0 ? bytes.length : stringLength(bytes)
  }
  let uncles = 0
  for (const uncle of block.uncleHeaders) uncles += uncle.serialize().length
  let payload = header + listLength(transactions) + listLength(uncles)
  if (block.withdrawals !== undefined) payload += RLP.encode(block.withdrawals.map((w) => w.raw())).length
  return listLength(payload)
}

/** The length of an RLP list whose items encode to `payload` bytes. */
const listLength = (payload: number) => payload + prefixLength(payload)

/** The length of `bytes` encoded as an RLP byte string. */
const stringLength = (bytes: Uint8Array) => (bytes.length === 1 && bytes[0]! < 0x80 ? 1 : bytes.length + prefixLength(bytes.length))

/** An RLP length prefix: one byte below 56, else one byte plus the length's own big-endian bytes. */
function prefixLength(length: number): number {
  if (length < 56) return 1
  let bytes = 0
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes++
  return 1 + bytes
}

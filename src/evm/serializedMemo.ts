import { AccessList2930Tx, Blob4844Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from '@ethereumjs/tx'

/*
 * A decoded transaction's serialized form is the bytes it was decoded from:
 * ethereumjs decodes strictly (canonical RLP lengths, no leading zeroes in
 * integers, fixed-size addresses and keys), so a transaction it accepts
 * encodes back to exactly its input. ethereumjs serializes again each time
 * (for tx.hash() at admission, for the block's transaction root, for
 * eth_getRawTransaction...): a full RLP encode with a dozen small arrays per
 * call, about 5 % of the CPU per ETH transfer. `rememberSerialized` keeps the
 * input for a frozen transaction (every one devnet decodes; an unfrozen one
 * could still change), and serialize() answers a copy of it, so a caller
 * that writes into the result changes nothing else. Applied once to
 * @ethereumjs/tx (10.1) by the patch registry (patches/registry.ts).
 *
 * A frozen transaction devnet built itself (a simulated call, a signed
 * eth_sendTransaction) has no input bytes: its first serialize() encodes it
 * and keeps the result, as the library keeps a frozen transaction's hash
 * (tx.cache.hash) on the same premise that its fields no longer change. A
 * 100-call eth_simulateV1 serialized each call three times (its hash, the
 * transaction root, the block size).
 */
const serialized = new WeakMap<object, Uint8Array>()

type WithSerialize = { serialize(): Uint8Array; __devnetSerialized?: boolean }

let applied = false

export function applySerializedMemo() {
  applied = true
  for (const type of [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx]) {
    const prototype = type.prototype as unknown as WithSerialize
    if (prototype.__devnetSerialized) continue
    const original = prototype.serialize
    prototype.serialize = function (this: WithSerialize) {
      const bytes = serialized.get(this)
      if (bytes !== undefined) return bytes.slice()
      const encoded = original.call(this)
      if (Object.isFrozen(this)) serialized.set(this, encoded.slice())
      return encoded
    }
    prototype.__devnetSerialized = true
  }
}

/**
 * Records `bytes` as the serialized form of `tx`, decoded from exactly those bytes (or encoded from its final
 * fields): a copy, unless the caller hands over bytes nothing else holds (`owned`).
 */
export function rememberSerialized(tx: object, bytes: Uint8Array, owned = false): void {
  // Nothing reads the memo unless serialize() is replaced (not in stock mode).
  if (applied && Object.isFrozen(tx)) serialized.set(tx, owned ? bytes : bytes.slice())
}

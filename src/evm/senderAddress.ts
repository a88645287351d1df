import {
  AccessList2930Tx,
  Blob4844Tx,
  EOACode7702Tx,
  FeeMarket1559Tx,
  LegacyTx,
} from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { customCrypto } from './crypto.js'

/*
 * A signed transaction's sender, computed once per transaction object and
 * with the chain's keccak (src/evm/keccak.ts), applied once to @ethereumjs/tx (10.1) by the
 * patch registry (patches/registry.ts).
 *
 * ethereumjs caches a frozen transaction's recovered public key but not the
 * address: every getSenderAddress() (admission, then runTx) hashed the key
 * again with the pure-JS keccak. The address is the last 20 bytes of
 * keccak256(public key), as ethereumjs's publicToAddress computes it. Only
 * frozen transactions (every transaction devnet decodes) are memoized: an
 * unfrozen one can still change. A transaction that answers its sender
 * itself (impersonated ones) is not touched.
 */
const keccak = customCrypto.keccak256
const memo = new WeakMap<object, Address>()

type WithSender = { getSenderAddress(): Address; getSenderPublicKey(): Uint8Array; __devnetSender?: boolean }

export const senderTxClasses = [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx]

export function applySenderAddressMemo() {
  if (!keccak) return
  for (const type of senderTxClasses) {
    const prototype = type.prototype as unknown as WithSender
    if (prototype.__devnetSender) continue
    const original = prototype.getSenderAddress
    prototype.getSenderAddress = function (this: WithSender) {
      if (!Object.isFrozen(this)) return original.call(this)
      let address = memo.get(this)
      if (!address) {
        const publicKey = this.getSenderPublicKey()
        if (publicKey.length !== 64) return original.call(this)
        address = new Address(keccak(publicKey).slice(12))
        memo.set(this, address)
      }
      return address
    }
    prototype.__devnetSender = true
  }
}

import type { Common } from '@ethereumjs/common'
import { type TypedTransaction, createTx } from '@ethereumjs/tx'
import { type Address as EthAddress, concatBytes, createAddressFromString } from '@ethereumjs/util'
import type { Address } from 'viem'
import { keccak256 } from 'viem/utils'
import { impersonate } from './execute.js'

/**
 * A transaction sent from an address whose key devnet does not have
 * (anvil_impersonateAccount, eth_sendUnsignedTransaction). Like Anvil, it
 * carries a fake signature (r = s = 1) so it serializes as a normal signed
 * transaction in the block, reports `from` as its sender without recovery,
 * and takes its hash over the encoding plus the sender, so two impersonated
 * senders with identical fields never share a hash.
 */
export function createImpersonatedTx(common: Common, fields: Record<string, unknown>, from: Address): TypedTransaction {
  const type = Number(fields.type ?? 0)
  const legacyV = common.chainId() * 2n + 35n
  const signed = createTx({ ...fields, v: type === 0 ? legacyV : 0n, r: 1n, s: 1n } as never, { common, freeze: false })
  return markImpersonated(signed, createAddressFromString(from))
}

function markImpersonated<T extends TypedTransaction>(tx: T, from: EthAddress): T {
  impersonate(tx, from)
  const hash = keccak256(concatBytes(tx.serialize(), from.bytes), 'bytes')
  const patched = tx as T & { hash(): Uint8Array; verifySignature(): boolean }
  patched.hash = () => hash
  patched.verifySignature = () => true
  return tx
}

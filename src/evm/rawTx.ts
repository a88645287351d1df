import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import {
  NetworkWrapperType,
  TransactionType,
  type TypedTransaction,
  createBlob4844TxFromBytesArray,
  createBlob4844TxFromSerializedNetworkWrapper,
  createTxFromRLP,
} from '@ethereumjs/tx'

/**
 * Decodes a raw signed transaction as eth_sendRawTransaction receives it.
 *
 * A blob transaction comes in its network form (EIP-4844
 * `0x03 || rlp([tx, blobs, commitments, proofs])`, or EIP-7594
 * `0x03 || rlp([tx, version, blobs, commitments, cell_proofs])`): its
 * sidecar is checked against the versioned hashes with KZG, as geth's pool
 * does, then dropped. The pool and blocks keep the bare transaction; its hash
 * is the same. The bare form (a list of 14 fields) is accepted too.
 *
 * @throws Error from @ethereumjs/tx when the bytes are not a valid transaction
 *   or the sidecar does not verify.
 */
export function decodeRawTx(raw: Uint8Array, common: Common): TypedTransaction {
  if (raw[0] === TransactionType.BlobEIP4844 && isNetworkWrapper(raw)) {
    const wrapped = createBlob4844TxFromSerializedNetworkWrapper(raw, { common })
    // Osaka (EIP-7594) takes cell proofs only, earlier forks blob proofs only, as the block builder checks.
    const cellProofs = common.isActivatedEIP(7594)
    if (cellProofs && wrapped.networkWrapperVersion !== NetworkWrapperType.EIP7594)
      throw new Error('blob sidecar with blob proofs (version 0) after Osaka; send cell proofs (version 1)')
    if (!cellProofs && wrapped.networkWrapperVersion === NetworkWrapperType.EIP7594)
      throw new Error('blob sidecar with cell proofs (version 1) before Osaka')
    const [txValues] = RLP.decode(raw.subarray(1)) as unknown as [Uint8Array[]]
    return createBlob4844TxFromBytesArray(txValues as never, { common })
  }
  return createTxFromRLP(raw, { common })
}

/** In network form the first element of the payload is the transaction itself, a list. */
function isNetworkWrapper(raw: Uint8Array): boolean {
  const decoded: unknown = RLP.decode(raw.subarray(1))
  return Array.isArray(decoded) && Array.isArray(decoded[0])
}

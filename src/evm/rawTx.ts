import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { rememberSerialized } from './serializedMemo.js'
import {
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
    // Either sidecar version is taken on any fork, as geth does: after Osaka it
    // converts blob proofs (version 0, what viem and ethers send) to cell proofs
    // in eth_sendRawTransaction, and it sends cell proofs (version 1) before
    // Osaka too. The sidecar is only verified here, never kept, so no
    // conversion is needed.
    createBlob4844TxFromSerializedNetworkWrapper(raw, { common })
    const [txValues] = RLP.decode(raw.subarray(1)) as unknown as [Uint8Array[]]
    return createBlob4844TxFromBytesArray(txValues as never, { common })
  }
  const tx = createTxFromRLP(raw, { common })
  // The bare form only: a blob transaction's network form is not its serialization.
  rememberSerialized(tx, raw)
  return tx
}

/** In network form the first element of the payload is the transaction itself, a list. */
function isNetworkWrapper(raw: Uint8Array): boolean {
  const decoded: unknown = RLP.decode(raw.subarray(1))
  return Array.isArray(decoded) && Array.isArray(decoded[0])
}

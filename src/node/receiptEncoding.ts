import { RLP, bigIntToUnpaddedBytes, concatBytes, hexToBytes } from '../evm/engine.js'
import type { ExecutedTx } from '../evm/types.js'

/**
 * A receipt's consensus encoding (the receipts-trie leaf): `type ||
 * rlp([status, cumulativeGasUsed, logsBloom, logs])`, no type byte for legacy
 * transactions, and before Byzantium the post-state root in place of the
 * status (imported chains keep it as `root`).
 */
export function encodeReceipt(executed: ExecutedTx): Uint8Array {
  const root = (executed as ExecutedTx & { root?: Uint8Array | undefined }).root
  const outcome = root instanceof Uint8Array ? root : executed.status === 1 ? Uint8Array.of(1) : new Uint8Array()
  const body = RLP.encode([
    outcome,
    bigIntToUnpaddedBytes(executed.cumulativeGasUsed),
    executed.logsBloom,
    executed.logs.map((log) => [hexToBytes(log.address), log.topics.map((t) => hexToBytes(t)), hexToBytes(log.data)]),
  ])
  const type = executed.tx.type
  return type === 0 ? body : concatBytes(Uint8Array.of(type), body)
}

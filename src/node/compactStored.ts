import { equalsBytes } from '../evm/engine.js'
import { flat } from '../evm/engine.js'
import type { ExecutedBlock } from '../evm/types.js'

/**
 * Makes a block that is about to be kept for the life of the chain cost less
 * memory, without changing any value in it.
 *
 * - Its hex strings (transaction hashes, senders, log addresses, topics and
 *   data) are flattened: viem's bytesToHex builds them one byte at a time,
 *   which V8 keeps as a rope of one cons cell per byte until the characters
 *   are read (trieStorage.ts), ~11 MiB of cells after 2,000 blocks.
 * - The block's transaction objects are the executed ones. BlockBuilder.build
 *   (and createBlock) re-creates every transaction from the one it ran, each
 *   with its own copy of the chain's Common, so each sealed transaction was
 *   kept twice. Transactions are frozen and the block's list only ever read;
 *   a copy is replaced only when it is the same transaction (same hash, same
 *   hardfork).
 * - Its small byte arrays kept per transaction (the receipt's 256-byte logs
 *   bloom, the transaction's cached hash and sender key) are copied into
 *   shared slabs: a view costs one small object, where an array of its own
 *   also costs an ArrayBuffer, a backing-store record and a malloc'd block.
 *   The bytes are the same; nothing writes to them.
 */
export function compactExecuted(executed: ExecutedBlock): void {
  const blockTxs = executed.block.transactions as unknown[]
  const shareTxs = !Object.isFrozen(blockTxs) && blockTxs.length === executed.txs.length
  executed.txs.forEach((executedTx, i) => {
    flat(executedTx.hash)
    flat(executedTx.from)
    if (executedTx.contractAddress) flat(executedTx.contractAddress)
    for (const log of executedTx.logs) {
      flat(log.address)
      flat(log.data)
      for (const topic of log.topics) flat(topic)
    }
    executedTx.logsBloom = packed(executedTx.logsBloom)
    const cache = (executedTx.tx as unknown as { cache?: { hash?: Uint8Array; senderPubKey?: Uint8Array } }).cache
    if (cache?.hash) cache.hash = packed(cache.hash)
    if (cache?.senderPubKey) cache.senderPubKey = packed(cache.senderPubKey)
    const copy = executed.block.transactions[i]
    if (
      shareTxs &&
      copy !== undefined &&
      copy !== executedTx.tx &&
      copy.common.hardfork() === executedTx.tx.common.hardfork() &&
      equalsBytes(copy.hash(), executedTx.tx.hash())
    )
      blockTxs[i] = executedTx.tx
  })
}

const SLAB_SIZE = 1 << 18
let slab = new Uint8Array(0)
let used = 0

/** `bytes` copied into the current slab (already there: as it is). */
function packed(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer === slab.buffer || bytes.length > SLAB_SIZE >> 4) return bytes
  if (used + bytes.length > slab.length) {
    slab = new Uint8Array(SLAB_SIZE)
    used = 0
  }
  const view = slab.subarray(used, used + bytes.length)
  view.set(bytes)
  used += bytes.length
  return view
}

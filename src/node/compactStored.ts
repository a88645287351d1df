import { equalsBytes } from '@ethereumjs/util'
import { flat } from '../evm/trieStorage.js'
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

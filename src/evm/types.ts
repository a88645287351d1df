import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address, Hex } from 'viem'

/** A log as the EVM emitted it, before it is placed in a block. */
export type EvmLog = {
  address: Address
  topics: Hex[]
  data: Hex
}

/**
 * One executed transaction: what a receipt is made of. `gasUsed` is the gas the
 * block charged for it (after refunds), `cumulativeGasUsed` the block's running
 * total including it.
 */
export type ExecutedTx = {
  tx: TypedTransaction
  hash: Hex
  from: Address
  status: 0 | 1
  gasUsed: bigint
  cumulativeGasUsed: bigint
  effectiveGasPrice: bigint
  contractAddress: Address | null
  logs: EvmLog[]
  /** EIP-4844 fields, present for blob transactions only. */
  blobGasUsed?: bigint | undefined
  blobGasPrice?: bigint | undefined
  /** Receipt trie leaf, kept so the block's receipts can be re-encoded (debug_getRawReceipts). */
  logsBloom: Uint8Array
}

/** A sealed block with the outcome of each of its transactions, in order. */
export type ExecutedBlock = {
  block: Block
  txs: ExecutedTx[]
}

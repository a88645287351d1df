import type { Block } from '../../evm/engine.js'
import type { Address, Hex } from 'viem'
import type { CallRequest } from '../../evm/execute.js'
import type { EvmLog, ExecutedTx } from '../../evm/types.js'
import type { BlockOverrides, StateOverrides } from '../call.js'

/** A withdrawal as a block override carries it (amount in gwei). */
export type Withdrawal = { index: bigint; validatorIndex: bigint; address: Address; amount: bigint }

/** eth_simulateV1's block overrides: eth_call's, plus the fields only a whole block has. */
export type SimBlockOverrides = BlockOverrides & {
  withdrawals?: Withdrawal[] | undefined
  beaconRoot?: Hex | undefined
}

/** One entry of `blockStateCalls`. */
export type SimBlock = {
  blockOverrides?: SimBlockOverrides | undefined
  stateOverrides?: StateOverrides | undefined
  calls: CallRequest[]
}

/** The decoded payload (first parameter) of eth_simulateV1. */
export type SimulatePayload = {
  blockStateCalls: SimBlock[]
  traceTransfers: boolean
  validation: boolean
  returnFullTransactions: boolean
}

/** How one call ended: geth's `error` object of a failed call result. */
export type SimCallError = { code: number; message: string; data?: Hex | undefined }

/** A log of a simulated call, its index counted across the whole block. */
export type SimLog = EvmLog & { logIndex: number }

export type SimCallResult = {
  status: 0 | 1
  returnData: Hex
  gasUsed: bigint
  maxUsedGas: bigint
  logs: SimLog[]
  error: SimCallError | undefined
}

/** One simulated block: a real block (hash, roots, size) and what each call did. */
export type SimulatedBlock = {
  block: Block
  hash: Hex
  /** The block's RLP size (the `size` field). */
  size: number
  txs: ExecutedTx[]
  calls: SimCallResult[]
}

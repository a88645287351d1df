import { DevnetError } from '../errors/base.js'
import type { ForkRemoteError } from './fork/remote.js'

/**
 * Domain errors of the node. Each has a unique literal `name`, which
 * `rpc/toRpcError.ts` maps to a JSON-RPC code in one exhaustive switch.
 * Messages use geth's words, which viem's error regexes recognise.
 */
export class NonceTooLowError extends DevnetError {
  override readonly name = 'NonceTooLowError' as const
  constructor(readonly address: string, readonly stateNonce: bigint, readonly txNonce: bigint) {
    super(`nonce too low: next nonce ${stateNonce}, tx nonce ${txNonce}`)
  }
}

export class NonceTooHighError extends DevnetError {
  override readonly name = 'NonceTooHighError' as const
  constructor(readonly address: string, readonly stateNonce: bigint, readonly txNonce: bigint) {
    super(`nonce too high: next nonce ${stateNonce}, tx nonce ${txNonce}`)
  }
}

export class InsufficientFundsError extends DevnetError {
  override readonly name = 'InsufficientFundsError' as const
  constructor(readonly address: string, readonly have: bigint, readonly want: bigint) {
    super(`insufficient funds for gas * price + value: address ${address} have ${have} want ${want}`)
  }
}

export class FeeCapTooLowError extends DevnetError {
  override readonly name = 'FeeCapTooLowError' as const
  constructor(readonly maxFeePerGas: bigint, readonly baseFee: bigint) {
    super(`max fee per gas less than block base fee: maxFeePerGas: ${maxFeePerGas}, baseFee: ${baseFee}`)
  }
}

export class IntrinsicGasTooLowError extends DevnetError {
  override readonly name = 'IntrinsicGasTooLowError' as const
  constructor(readonly have: bigint, readonly want: bigint) {
    super(`intrinsic gas too low: have ${have}, want ${want}`)
  }
}

export class ReplacementUnderpricedError extends DevnetError {
  override readonly name = 'ReplacementUnderpricedError' as const
  constructor() {
    super('replacement transaction underpriced')
  }
}

export class AlreadyKnownError extends DevnetError {
  override readonly name = 'AlreadyKnownError' as const
  constructor() {
    super('already known')
  }
}

/** Any other reason the pool refuses a transaction (gas limit above the block's, bad chain id, ...). */
export class TxRejectedError extends DevnetError {
  override readonly name = 'TxRejectedError' as const
}

/** A block that does not exist (yet). geth answers "header not found". */
export class UnknownBlockError extends DevnetError {
  override readonly name = 'UnknownBlockError' as const
  constructor(readonly block: string) {
    super('header not found')
  }
}

/** A call that reverted; `data` is the revert payload. */
export class ExecutionRevertedError extends DevnetError {
  override readonly name = 'ExecutionRevertedError' as const
  constructor(readonly data: `0x${string}`, reason: string | undefined) {
    super(reason ? `execution reverted: ${reason}` : 'execution reverted')
  }
}

/** A call that failed in the VM without REVERT (out of gas, invalid opcode, ...). */
export class ExecutionFailedError extends DevnetError {
  override readonly name = 'ExecutionFailedError' as const
}

/** A request the node understood but cannot satisfy (unknown snapshot, no such filter, ...). */
export class InvalidInputError extends DevnetError {
  override readonly name = 'InvalidInputError' as const
}

/** An argument the node refuses (a reorg deeper than the chain): JSON-RPC -32602. */
export class InvalidArgumentError extends DevnetError {
  override readonly name = 'InvalidArgumentError' as const
}

/** A wait that ran out of time (eth_sendRawTransactionSync). */
export class TimeoutError extends DevnetError {
  override readonly name = 'TimeoutError' as const
  constructor(message: string, readonly data: unknown) {
    super(message)
  }
}

/**
 * An eth_simulateV1 request refused as a whole, with the code geth gives it:
 * -38010 … -38026 for the simulation's own checks, -32602 for bad input,
 * -32000 for state-override errors, -32603 for any other transaction error.
 */
export class SimulateError extends DevnetError {
  override readonly name = 'SimulateError' as const
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

export type NodeError =
  | InvalidArgumentError
  | ForkRemoteError
  | NonceTooLowError
  | NonceTooHighError
  | InsufficientFundsError
  | FeeCapTooLowError
  | IntrinsicGasTooLowError
  | ReplacementUnderpricedError
  | AlreadyKnownError
  | TxRejectedError
  | UnknownBlockError
  | ExecutionRevertedError
  | ExecutionFailedError
  | InvalidInputError
  | TimeoutError
  | SimulateError

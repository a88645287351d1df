import type { NodeError } from '../node/errors.js'
import { ArgError } from './codecs.js'
import {
  ExecutionRevertedRpcError,
  InternalError,
  InvalidInputError,
  InvalidParamsError,
  RpcError,
} from './errors.js'

const nodeErrorNames = new Set<string>([
  'NonceTooLowError', 'NonceTooHighError', 'InsufficientFundsError', 'FeeCapTooLowError',
  'IntrinsicGasTooLowError', 'ReplacementUnderpricedError', 'AlreadyKnownError', 'TxRejectedError',
  'UnknownBlockError', 'ExecutionRevertedError', 'ExecutionFailedError', 'InvalidInputError', 'TimeoutError',
  'SimulateError', 'ForkRemoteError', 'InvalidArgumentError',
])

const isNodeError = (error: unknown): error is NodeError =>
  error instanceof Error && nodeErrorNames.has(error.name)

/**
 * The one map from anything thrown to a JSON-RPC error object. Wire errors
 * pass through; each domain error gets its code here (the switch is
 * exhaustive: a new domain error does not compile until it has a code);
 * anything else is an internal error, logged, with its stack sent only in
 * debug mode.
 */
export function toRpcError(error: unknown, options: { debug: boolean; log: (error: unknown) => void }) {
  if (error instanceof RpcError) return error.toErrorObject()
  if (isNodeError(error)) {
    switch (error.name) {
      case 'ExecutionRevertedError':
        return new ExecutionRevertedRpcError(error.shortMessage, error.data).toErrorObject()
      case 'TimeoutError':
        return { code: 4, message: error.shortMessage, data: error.data }
      case 'SimulateError':
        return new RpcError(error.code, error.shortMessage).toErrorObject()
      case 'NonceTooLowError':
      case 'NonceTooHighError':
      case 'InsufficientFundsError':
      case 'FeeCapTooLowError':
      case 'IntrinsicGasTooLowError':
      case 'ReplacementUnderpricedError':
      case 'AlreadyKnownError':
      case 'TxRejectedError':
      case 'UnknownBlockError':
      case 'ExecutionFailedError':
      case 'InvalidInputError':
        return new InvalidInputError(error.shortMessage).toErrorObject()
      case 'InvalidArgumentError':
        return new InvalidParamsError(error.shortMessage).toErrorObject()
      case 'ForkRemoteError':
        // A revert the upstream reported (a call below the fork block) stays a revert, with its data; anything else is -32000 naming the upstream.
        if (error.upstreamCode === 3) return { code: 3, message: error.shortMessage, data: error.upstreamData }
        return new InvalidInputError(error.shortMessage).toErrorObject()
      default:
        error satisfies never
    }
  }
  if (error instanceof Error && error.name === 'ConfigError') return new InvalidParamsError(error.message).toErrorObject()
  // A decoder a handler ran on part of its params (anvil_reorg's depth): the client's input, not a bug.
  if (error instanceof ArgError) return new InvalidParamsError(`invalid argument: ${error.message}`).toErrorObject()
  options.log(error)
  return new InternalError(
    'internal error',
    options.debug && error instanceof Error ? { message: error.message, stack: error.stack } : undefined,
  ).toErrorObject()
}

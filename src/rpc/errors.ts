/**
 * Wire errors: what a JSON-RPC response's `error` carries. Each class has its
 * code; `toRpcError` maps every domain error onto one of these.
 */
export class RpcError extends Error {
  static readonly code: number = -32603
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }

  toErrorObject() {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

export class ParseError extends RpcError {
  static override readonly code = -32700
  override name = 'Rpc.ParseError'
  constructor(message = 'parse error') {
    super(-32700, message)
  }
}

export class InvalidRequestError extends RpcError {
  static override readonly code = -32600
  override name = 'Rpc.InvalidRequestError'
  constructor(message = 'invalid request') {
    super(-32600, message)
  }
}

export class MethodNotFoundError extends RpcError {
  static override readonly code = -32601
  override name = 'Rpc.MethodNotFoundError'
  constructor(method: string) {
    super(-32601, `the method ${method} does not exist/is not available`)
  }
}

export class InvalidParamsError extends RpcError {
  static override readonly code = -32602
  override name = 'Rpc.InvalidParamsError'
  constructor(message: string) {
    super(-32602, message)
  }
}

export class InternalError extends RpcError {
  static override readonly code = -32603
  override name = 'Rpc.InternalError'
  constructor(message = 'internal error', data?: unknown) {
    super(-32603, message, data)
  }
}

export class InvalidInputError extends RpcError {
  static override readonly code = -32000
  override name = 'Rpc.InvalidInputError'
  constructor(message: string, data?: unknown) {
    super(-32000, message, data)
  }
}

export class ExecutionRevertedRpcError extends RpcError {
  static override readonly code = 3
  override name = 'Rpc.ExecutionRevertedError'
  constructor(message: string, data: `0x${string}`) {
    super(3, message, data)
  }
}

/** An invalid argument, named by position as geth does: "invalid argument 1: ...". */
export const invalidArgument = (index: number, reason: string) =>
  new InvalidParamsError(`invalid argument ${index}: ${reason}`)

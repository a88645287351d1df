import type { Node } from '../node/node.js'
import { decodeParams } from './codecs.js'

/** What a method handler gets besides its decoded params. */
export type MethodContext = {
  node: Node
  debug: boolean
  /**
   * Replaces the node with a fork of `forking.url` at `forking.blockNumber`
   * (anvil_reset / hardhat_reset with `forking`); absent where the host
   * cannot build nodes.
   */
  refork?: ((forking: { url: string; blockNumber: bigint | 'latest' }) => Promise<Node>) | undefined
}

export type MethodDef = {
  method: string
  call(context: MethodContext, params: unknown): Promise<unknown> | unknown
  /**
   * Set on a state read whose answer is a function of its params and of the
   * state at its block parameter alone (at index `block`): the dispatcher
   * may answer a repeat at `latest` (or the parameter left out), and at
   * `pending` when `pending` is set, from its memo (answerMemo.ts). The
   * handler must resolve its block before its first await: the memo keys
   * the answer by the view resolved just before the call.
   */
  readsState?: { block: number; pending: boolean } | undefined
}

/**
 * Declares one JSON-RPC method as data: its name, a decoder per positional
 * parameter, how many are required, and a handler over native values.
 */
export function defineMethod<const T extends unknown[]>(def: {
  method: string
  params: { [K in keyof T]: (value: unknown) => T[K] }
  required?: number
  handler: (context: MethodContext, params: T) => Promise<unknown> | unknown
  readsState?: MethodDef['readsState']
}): MethodDef {
  const required = def.required ?? def.params.length
  return {
    method: def.method,
    call: (context, params) => def.handler(context, decodeParams<T>(params, def.params, required)),
    ...(def.readsState ? { readsState: def.readsState } : {}),
  }
}

/** The same handler under several names (anvil_*, hardhat_*, evm_* aliases). */
export const alias = (def: MethodDef, ...names: string[]): MethodDef[] => [
  def,
  ...names.map((method) => ({ ...def, method })),
]

import { type MethodContext, type MethodDef, defineMethod } from '../defineMethod.js'

/**
 * One handler under Anvil's and Hardhat's names. The two disagree only on
 * what a setter answers: Anvil `null` (or the handler's value), Hardhat
 * `true`. `anvil` names get the handler's result (undefined → null),
 * `hardhat` names get `true`.
 */
export function harnessMethod<const T extends unknown[]>(def: {
  anvil: string[]
  hardhat?: string[]
  params: { [K in keyof T]: (value: unknown) => T[K] }
  required?: number
  handler: (context: MethodContext, params: T) => Promise<unknown> | unknown
}): MethodDef[] {
  const make = (method: string, answer: (result: unknown) => unknown) =>
    defineMethod<T>({
      method,
      params: def.params,
      ...(def.required !== undefined ? { required: def.required } : {}),
      handler: async (context, params) => answer(await def.handler(context, params)),
    })
  return [
    ...def.anvil.map((name) => make(name, (result) => result ?? null)),
    ...(def.hardhat ?? []).map((name) => make(name, () => true)),
  ]
}

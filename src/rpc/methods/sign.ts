import type { Address, Hex } from 'viem'
import type { Node } from '../../node/node.js'
import { address, data } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { TxRejectedError } from '../../node/errors.js'

const signer = (node: Node, addr: Address) => {
  const found = node.accounts.find((a) => a.address.toLowerCase() === addr.toLowerCase())
  if (!found) throw new TxRejectedError(`unknown account ${addr}`)
  return found.account()
}

/** Signing with the dev accounts: eth_sign, personal_sign, eth_signTypedData_v4. */
export const signMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_sign',
    params: [address, data],
    handler: async ({ node }, [addr, message]) => (await signer(node, addr)).signMessage({ message: { raw: message } }),
  }),
  defineMethod({
    method: 'personal_sign',
    params: [data, address],
    handler: async ({ node }, [message, addr]) => (await signer(node, addr)).signMessage({ message: { raw: message } }),
  }),
  defineMethod({
    method: 'eth_signTypedData_v4',
    params: [address, (v: unknown) => v],
    handler: async ({ node }, [addr, typed]) => {
      let parsed: unknown = typed
      if (typeof typed === 'string') {
        try {
          parsed = JSON.parse(typed)
        } catch {
          throw new InvalidParamsError('invalid argument 1: typed data is not valid JSON')
        }
      }
      if (typeof parsed !== 'object' || parsed === null) throw new InvalidParamsError('invalid argument 1: expected typed data')
      const { domain, types, primaryType, message } = parsed as Record<string, unknown>
      if (!types || !primaryType || !message) throw new InvalidParamsError('invalid argument 1: typed data needs types, primaryType and message')
      const { EIP712Domain: _, ...rest } = types as Record<string, unknown>
      const sign = (await signer(node, addr)).signTypedData as (args: Record<string, unknown>) => Promise<Hex>
      return sign({ domain: domain ?? {}, types: rest, primaryType, message })
    },
  }),
]

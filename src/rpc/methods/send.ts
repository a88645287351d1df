import type { Hex } from 'viem'
import { hexToBytes } from 'viem/utils'
import type { TypedTransaction } from '../../node/engineTypes.js'
import { TxRejectedError } from '../../node/errors.js'
import type { Node } from '../../node/node.js'
import { callRequest, data, millis } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { receiptOfBlock, receiptOfPreconf } from '../format.js'

export function decodeRaw(node: Node, raw: Hex): TypedTransaction {
  try {
    return node.decodeRaw(hexToBytes(raw))
  } catch (error) {
    const message = (error as Error).message
    if (/chain ?id/i.test(message)) throw new TxRejectedError('invalid chain id for signer')
    throw new InvalidParamsError(`invalid argument 0: ${message.split('\n')[0]!.replace(/ \(tx type=.*$/, '')}`)
  }
}

/**
 * Fills, signs and admits a transaction as its sender (Node.sendTransaction:
 * under the sender's lock, so sends in flight together take consecutive
 * nonces); `from` is required.
 */
function sendFilled(node: Node, request: ReturnType<typeof callRequest>, options: { unsigned?: boolean } = {}) {
  const from = request.from
  if (!from) throw new InvalidParamsError('invalid argument 0: from is required')
  return node.sendTransaction({ ...request, from }, options)
}

/**
 * Sending: eth_sendRawTransaction, eth_sendTransaction (dev accounts), and
 * eth_sendRawTransactionSync (EIP-7966), which answers with the receipt as
 * soon as the transaction is pre-confirmed, like Base.
 */
export const sendMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_sendRawTransaction',
    params: [data],
    // Answers once its block's transactions ran; the dispatcher holds later requests until the rest of the seal is done.
    handler: ({ node }, [raw]) => node.submit(decodeRaw(node, raw), { answerFirst: true }),
  }),
  defineMethod({
    method: 'eth_sendTransaction',
    params: [callRequest],
    handler: ({ node }, [request]) => sendFilled(node, request),
  }),
  // Anvil's: sends from any address without its key, as if it were impersonated.
  defineMethod({
    method: 'eth_sendUnsignedTransaction',
    params: [callRequest],
    handler: ({ node }, [request]) => sendFilled(node, request, { unsigned: true }),
  }),
  defineMethod({
    method: 'eth_sendRawTransactionSync',
    params: [data, millis],
    required: 1,
    handler: async ({ node }, [raw, timeout]) => {
      const max = 6000n
      if (timeout !== undefined && timeout > max)
        throw new InvalidParamsError(`time out too long, timeout: ${timeout} ms, max: ${max} ms`)
      const at = await node.submitAndWait(decodeRaw(node, raw), Number(timeout ?? max))
      return at.kind === 'sealed' ? receiptOfBlock(at.block, at.index) : receiptOfPreconf(at.snapshot, at.index)
    },
  }),
]


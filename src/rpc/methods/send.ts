import type { Hex } from 'viem'
import { hexToBytes } from 'viem/utils'
import type { CallRequest, TypedTransaction } from '../../node/engineTypes.js'
import { TimeoutError, TxRejectedError } from '../../node/errors.js'
import { fillAndSignAs } from '../../node/fillAndSign.js'
import type { Node } from '../../node/node.js'
import { callRequest, data, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { receiptOf } from './blocks.js'

export function decodeRaw(node: Node, raw: Hex): TypedTransaction {
  try {
    return node.decodeRaw(hexToBytes(raw))
  } catch (error) {
    const message = (error as Error).message
    if (/chain ?id/i.test(message)) throw new TxRejectedError('invalid chain id for signer')
    throw new InvalidParamsError(`invalid argument 0: ${message.split('\n')[0]!.replace(/ \(tx type=.*$/, '')}`)
  }
}

/** Waits until `hash` has a receipt (pre-confirmed or sealed), or `timeoutMs` passes. */
export function waitForReceipt(node: Node, txHash: Hex, timeoutMs: number) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const done = () => {
      const receipt = receiptOf(node, txHash)
      if (!receipt) return false
      cleanup()
      resolve(receipt)
      return true
    }
    const offPreconf = node.events.on('preconf', () => void done())
    const offHead = node.events.on('newHead', () => void done())
    const timer = setTimeout(() => {
      cleanup()
      reject(new TimeoutError(`The transaction was added to the mempool but wasn't processed within ${timeoutMs}ms.`, txHash))
    }, timeoutMs)
    const cleanup = () => {
      offPreconf()
      offHead()
      clearTimeout(timer)
    }
    done()
  })
}

/** Fills and signs `request` as its sender (node/fillAndSign.ts); `from` is required. */
export function fillAndSign(
  node: Node,
  request: CallRequest,
  options: { unsigned?: boolean } = {},
): Promise<TypedTransaction> {
  const from = request.from
  if (!from) throw new InvalidParamsError('invalid argument 0: from is required')
  return fillAndSignAs(node, { ...request, from }, options)
}

/**
 * Fills, signs and admits a transaction under its sender's lock, so sends
 * from one account in flight together take consecutive nonces (geth's
 * AddrLocker); waits for the block in auto mode after the lock is released.
 */
async function sendFilled(node: Node, request: ReturnType<typeof callRequest>, options: { unsigned?: boolean } = {}) {
  const { hash, sealed } = await node.senderLocks.run(request.from ?? '', async () =>
    node.enqueue(await fillAndSign(node, request, options)),
  )
  if (sealed) await sealed
  return hash
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
    handler: ({ node }, [raw]) => node.submit(decodeRaw(node, raw)),
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
    params: [data, uint64],
    required: 1,
    handler: async ({ node }, [raw, timeout]) => {
      const max = 6000n
      if (timeout !== undefined && timeout > max)
        throw new InvalidParamsError(`time out too long, timeout: ${timeout} ms, max: ${max} ms`)
      const txHash = await node.submit(decodeRaw(node, raw))
      return waitForReceipt(node, txHash, Number(timeout ?? max))
    },
  }),
]


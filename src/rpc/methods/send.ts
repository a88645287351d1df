import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { createImpersonatedTx } from '../../evm/impersonated.js'
import { TimeoutError, TxRejectedError } from '../../node/errors.js'
import type { Node } from '../../node/node.js'
import { estimateGas } from '../../node/call.js'
import { callRequest, data, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { receiptOf } from './blocks.js'
import { suggestedTip } from './chain.js'

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

/**
 * Fills a transaction the way a wallet would, then signs it with the dev
 * account's key, or, for an impersonated sender (anvil_impersonateAccount,
 * or any sender for eth_sendUnsignedTransaction), gives it Anvil's fake
 * signature.
 */
export async function fillAndSign(
  node: Node,
  request: ReturnType<typeof callRequest>,
  options: { unsigned?: boolean } = {},
): Promise<TypedTransaction> {
  const from = request.from
  if (!from) throw new InvalidParamsError('invalid argument 0: from is required')
  const account = options.unsigned ? undefined : node.accounts.find((a) => a.address.toLowerCase() === from)
  if (!account && !options.unsigned && !node.controls.isImpersonated(from))
    throw new TxRejectedError(`unknown account ${from}`)
  const pending = node.views.resolve({ tag: 'pending' })
  const stateNonce = (await node.views.reader(pending).getAccount(createAddressFromString(from)))?.nonce ?? 0n
  const nonce = request.nonce ?? node.pool.nextNonce(from, stateNonce)
  const baseFee = pending.env.baseFeePerGas ?? 0n
  const gas =
    request.gas ??
    (await node.views.withVm(pending, (vm) =>
      estimateGas(node.common, vm, pending, request, { gasCap: node.config.rpcGasCap }),
    ))
  const legacy = request.gasPrice !== undefined
  const tip = request.maxPriorityFeePerGas ?? suggestedTip
  const fields = {
    nonce,
    gasLimit: gas,
    to: request.to ?? undefined,
    value: request.value ?? 0n,
    data: request.data ?? '0x',
    chainId: node.chainId,
    accessList: request.accessList,
    ...(legacy
      ? { type: request.accessList ? 1 : 0, gasPrice: request.gasPrice }
      : { type: request.type ?? 2, maxPriorityFeePerGas: tip, maxFeePerGas: request.maxFeePerGas ?? baseFee * 2n + tip }),
    ...(request.authorizationList ? { type: 4, authorizationList: request.authorizationList } : {}),
  }
  if (!account) return createImpersonatedTx(node.common, fields, from)
  const tx = createTx(fields as never, { common: node.common })
  return tx.sign(hexToBytes(account.privateKey))
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


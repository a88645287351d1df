import type { Hex } from 'viem'
import { type TypedTransaction, createAddressFromString, createTx, hexToBytes } from '../evm/engine.js'
import type { CallRequest } from '../evm/execute.js'
import { createImpersonatedTx } from '../evm/engine.js'
import { estimateGas } from './call.js'
import { TxRejectedError } from './errors.js'
import type { Node } from './node.js'

/** The tip devnet suggests (eth_maxPriorityFeePerGas) and fills in, as Anvil and Hardhat do: 1 gwei. */
export const suggestedTip = 1_000_000_000n

/**
 * Fills a transaction the way a wallet would, then signs it with the dev
 * account's key, or, for an impersonated sender (anvil_impersonateAccount,
 * or any sender for eth_sendUnsignedTransaction), gives it Anvil's fake
 * signature.
 */
export async function fillAndSignAs(
  node: Node,
  request: CallRequest & { from: Hex },
  options: { unsigned?: boolean } = {},
): Promise<TypedTransaction> {
  const from = request.from
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

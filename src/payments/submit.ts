import type { Address, Client, Hash, Hex, TransactionReceipt } from 'viem'
import { TransactionRevertedError, redactError } from './errors.js'
import { type SendOptions, accountOf, decodeRevert, isPreconfirmed, replayRevert, sendAndWait, waitForReceipt } from './send.js'

export declare namespace submitCall {
  type Options = SendOptions & {
    /** Sends and pays the gas. */
    wallet: Client
    /** Reads (revert replay, sealed receipt). @default wallet */
    client?: Client | undefined
    /** Return at the pre-confirmed receipt, or wait for the sealed block. @default 'preconfirmed' */
    waitFor?: 'preconfirmed' | 'sealed' | undefined
  }
  type ReturnType = { state: 'preconfirmed' | 'sealed'; transactionHash: Hash; receipt: TransactionReceipt }
}

/**
 * Sends one contract call from the wallet's account and returns its receipt;
 * a rejection at estimate or a revert on chain becomes a
 * {@link TransactionRevertedError} carrying the contract's reason. `secrets`
 * (signatures in the calldata) are scrubbed from the error chain.
 *
 * - JSON-RPC methods: `eth_sendRawTransactionSync` (or `eth_sendRawTransaction`
 *   / `eth_sendTransaction`), `eth_getTransactionReceipt`, `eth_call` to
 *   replay a revert.
 */
export async function submitCall(
  action: string,
  request: { to: Address; data: Hex },
  options: submitCall.Options,
  secrets: readonly string[] = [],
): Promise<submitCall.ReturnType> {
  const { wallet } = options
  const client = options.client ?? wallet
  const account = accountOf(wallet)
  let receipt: TransactionReceipt
  try {
    receipt = await sendAndWait(wallet, request, options)
  } catch (error) {
    const decoded = decodeRevert(error)
    // Rejected at eth_estimateGas or admission: no gas spent.
    if (decoded)
      throw new TransactionRevertedError({
        action,
        reason: decoded.reason,
        revertMessage: decoded.revertMessage,
        cause: redactError(error, secrets),
      })
    throw redactError(error, secrets)
  }
  if (receipt.status !== 'success') {
    const decoded = await replayRevert(client, account.address, request, receipt)
    throw new TransactionRevertedError({
      action,
      reason: decoded?.reason ?? 'unknown',
      revertMessage: decoded?.revertMessage,
      transactionHash: receipt.transactionHash,
    })
  }
  if (isPreconfirmed(receipt) && options.waitFor === 'sealed')
    receipt = await waitForReceipt(client, receipt.transactionHash, { ...options, until: 'sealed' })
  return {
    state: isPreconfirmed(receipt) ? 'preconfirmed' : 'sealed',
    transactionHash: receipt.transactionHash,
    receipt,
  }
}

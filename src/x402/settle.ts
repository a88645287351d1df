import type { Account, Address, Client, Hash, TransactionReceipt } from 'viem'
import { estimateGas, sendTransaction } from 'viem/actions'
import { encodeCapture } from '../payments/capture.js'
import { decodeRevert, isPreconfirmed, waitForReceipt } from '../payments/send.js'
import type { ParsedRequest } from './parse.js'
import { reasonOfFailure, reasons } from './reasons.js'
import type { SettleResponse } from './types.js'
import { verifyExact } from './verify.js'

/** Which receipt a settlement answers on: the pre-confirmed one (~200 ms on devnet) or the sealed block's. */
export type SettleWaitFor = 'preconfirmed' | 'sealed'

export declare namespace settleExact {
  type Options = Omit<verifyExact.Options, 'submitter'> & {
    request: ParsedRequest
    /** A wallet client with an account (it pays the gas). */
    wallet: Client & { account: Account }
    /** @default 'preconfirmed' */
    waitFor?: SettleWaitFor | undefined
    /** Serializes submissions so concurrent settlements never race for a nonce. */
    submit: <T>(send: () => Promise<T>) => Promise<T>
    /** Authorizations being settled now, keyed `asset/payer/nonce`. */
    inFlight: Set<string>
    /** @default 25 */
    pollingInterval?: number | undefined
    /** Milliseconds to wait for the receipt. @default 60_000 */
    timeout?: number | undefined
  }
}

/**
 * Settles an x402 `exact` EVM payment: verifies it again at `pending` (the
 * payer may have drained the funds, or the nonce been used, since `/verify`),
 * then sends `transferWithAuthorization` from the facilitator's account and
 * answers with the transaction hash once the receipt is pre-confirmed or, with
 * `waitFor: 'sealed'`, once its block is sealed. A second settlement of the
 * same authorization while the first is in flight is refused at once, so the
 * facilitator never pays gas for a transfer that must revert.
 *
 * - JSON-RPC methods: those of {@link verifyExact}, `eth_estimateGas` (at
 *   `pending`), the send (`eth_sendRawTransaction` for a local account), and
 *   `eth_getTransactionReceipt` polls.
 */
export async function settleExact(options: settleExact.Options): Promise<SettleResponse> {
  const { wallet, request, inFlight } = options
  // A v1 request gets its network name back, a v2 one its CAIP-2 id.
  const network = request.network
  const submitter = wallet.account.address
  const verified = await verifyExact({ ...options, submitter })
  const payer = verified.payment?.payer
  const fail = (errorReason: string, errorMessage: string, transaction: Hash | '' = ''): SettleResponse => ({
    success: false,
    errorReason,
    errorMessage,
    ...(payer ? { payer } : {}),
    transaction,
    network,
  })
  if (!verified.response.isValid)
    return fail(verified.response.invalidReason ?? reasons.simulation, verified.response.invalidMessage ?? '')
  const { payment, authorization } = verified as Extract<typeof verified, { authorization: unknown }>

  const key = `${payment.asset}/${payment.payer}/${payment.nonce}`.toLowerCase()
  if (inFlight.has(key))
    return fail(reasons.nonceUsed, `a settlement of nonce ${payment.nonce} by ${payment.payer} is already in flight`)
  inFlight.add(key)
  try {
    const to: Address = payment.asset
    const data = encodeCapture(authorization, payment.signature, 'transferWithAuthorization')
    let hash: Hash
    try {
      hash = await options.submit(async () => {
        // Estimated at pending: the state the transfer will run on.
        const gas = await estimateGas(wallet, { account: wallet.account, to, data, blockTag: 'pending' })
        return sendTransaction(wallet, { account: wallet.account, chain: wallet.chain ?? null, to, data, gas })
      })
    } catch (error) {
      const decoded = decodeRevert(error)
      return fail(
        decoded ? reasonOfFailure[decoded.reason] : reasons.transactionFailed,
        `transferWithAuthorization was not sent: ${decoded?.revertMessage ?? (error as Error).message.split('\n')[0]}`,
      )
    }
    let receipt: TransactionReceipt
    try {
      receipt = await waitForReceipt(wallet, hash, {
        until: options.waitFor === 'sealed' ? 'sealed' : 'preconfirmed',
        pollingInterval: options.pollingInterval ?? 25,
        timeout: options.timeout ?? 60_000,
      })
    } catch (error) {
      // The reference's word for "sent, outcome unknown": a resource server may ask again later.
      return fail(reasons.pending, (error as Error).message.split('\n')[0] ?? '', hash)
    }
    if (receipt.status !== 'success')
      return fail(reasons.transactionFailed, `transferWithAuthorization reverted in ${hash}`, hash)
    return {
      success: true,
      payer: payment.payer,
      transaction: hash,
      network,
      amount: payment.value.toString(),
      extra: {
        receipt: isPreconfirmed(receipt) ? 'preconfirmed' : 'sealed',
        blockNumber: receipt.blockNumber.toString(),
      },
    }
  } finally {
    inFlight.delete(key)
  }
}

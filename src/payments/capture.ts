import { type Client, type Hash, type Hex, type TransactionReceipt, encodeFunctionData } from 'viem'
import { tokenAbi } from './abi.js'
import { captureMethodOf } from './authorize.js'
import { checkBeforeCapture } from './check.js'
import {
  CaptureCheckError,
  RecordNotFoundError,
  RecordStateError,
  TransactionRevertedError,
  redactError,
} from './errors.js'
import {
  type SendOptions,
  accountOf,
  decodeRevert,
  isPreconfirmed,
  replayRevert,
  sendAndWait,
  splitSignature,
  waitForReceipt,
} from './send.js'
import type { PaymentStore } from './store.js'
import type { Authorization, CaptureMethod, PaymentRecord } from './types.js'

/** Encodes the capture call: the `(v, r, s)` overload for 65-byte signatures (every USDC version has it), `bytes` otherwise (ERC-1271). */
export function encodeCapture(authorization: Authorization, signature: Hex, method: CaptureMethod): Hex {
  const { from, to, value, validAfter, validBefore, nonce } = authorization
  const parts = splitSignature(signature)
  return encodeFunctionData({
    abi: tokenAbi,
    functionName: method,
    args: parts
      ? [from, to, value, validAfter, validBefore, nonce, parts.v, parts.r, parts.s]
      : [from, to, value, validAfter, validBefore, nonce, signature],
  } as never)
}

/** The parts of a signature that must never reach a log. */
export function signatureSecrets(signature: Hex): string[] {
  const parts = splitSignature(signature)
  return [signature, ...(parts ? [parts.r, parts.s] : [])]
}

export declare namespace capture {
  type Source =
    | { store: PaymentStore; orderId: string; authorization?: undefined; signature?: undefined }
    | { store?: undefined; orderId?: undefined; authorization: Authorization; signature: Hex }
  type Options = Source &
    SendOptions & {
      /** The merchant's WalletClient (with an account); it pays the gas. */
      wallet: Client
      /** Reads. @default wallet */
      client?: Client | undefined
      /** @default the function that matches the primary type */
      method?: CaptureMethod | undefined
      /** Run {@link checkBeforeCapture} first. Turn off only to watch the token revert. @default true */
      check?: boolean | undefined
      /** Return at the pre-confirmed receipt, or wait for the sealed block. @default 'preconfirmed' */
      waitFor?: 'preconfirmed' | 'captured' | undefined
      /** Called (and awaited) at the pre-confirmed receipt, before waiting for the seal. */
      onPreconfirmed?: ((result: { transactionHash: Hash; receipt: TransactionReceipt }) => unknown) | undefined
    }
  type ReturnType = {
    state: 'preconfirmed' | 'captured'
    transactionHash: Hash
    receipt: TransactionReceipt
    record?: PaymentRecord | undefined
  }
}

/**
 * Submits the authorization on chain (before `validBefore`) and reports
 * `preconfirmed` once the pre-confirmed receipt succeeds, `captured` only
 * once the block is sealed (a receipt with a real block hash). Only a
 * successful capture guarantees the payment. A rejection or revert is decoded
 * into USDC's reason and recorded as `failed`.
 *
 * - JSON-RPC methods: the checks' reads, then `eth_sendRawTransactionSync`
 *   (falling back to `eth_sendRawTransaction`) for local accounts or
 *   `eth_sendTransaction`, and `eth_getTransactionReceipt`.
 */
export async function capture(options: capture.Options): Promise<capture.ReturnType> {
  const { wallet, store } = options
  const client = options.client ?? wallet
  let record: PaymentRecord | undefined
  let authorization: Authorization
  let signature: Hex
  if (store) {
    record = await store.get(options.orderId)
    if (!record) throw new RecordNotFoundError({ orderId: options.orderId })
    if (record.state !== 'authorized' && record.state !== 'failed')
      throw new RecordStateError({ orderId: record.orderId, state: record.state, action: 'capture' })
    ;({ authorization, signature } = record)
  } else ({ authorization, signature } = options as { authorization: Authorization; signature: Hex })
  const orderId = record?.orderId
  const method = options.method ?? captureMethodOf(authorization.primaryType)
  const account = accountOf(wallet)

  if (options.check ?? true) {
    const result = await checkBeforeCapture({ client, authorization, signature, submitter: account.address, method })
    if (!result.ok) {
      // Past the deadline nothing can be captured any more: record it.
      if (store && orderId !== undefined && result.failures.some((f) => f.reason === 'expired'))
        await store.transition(orderId, 'expired')
      throw new CaptureCheckError({ failures: result.failures })
    }
  }

  const request = { to: authorization.domain.verifyingContract, data: encodeCapture(authorization, signature, method) }
  const secrets = signatureSecrets(signature)
  const fail = async (error: unknown, transactionHash?: Hash, decoded = decodeRevert(error)) => {
    const reason = decoded?.reason ?? 'unknown'
    if (store && orderId !== undefined)
      await store.transition(orderId, 'failed', { reason, ...(transactionHash ? { transactionHash } : {}) })
    return new TransactionRevertedError({
      action: `capture (${method})`,
      reason,
      revertMessage: decoded?.revertMessage,
      transactionHash,
      cause: error === undefined ? undefined : redactError(error, secrets),
    })
  }

  let receipt: TransactionReceipt
  try {
    receipt = await sendAndWait(wallet, request, options)
  } catch (error) {
    // Rejected at eth_estimateGas or admission: no gas spent.
    if (decodeRevert(error)) throw await fail(error)
    throw redactError(error, secrets)
  }
  if (receipt.status !== 'success') {
    const decoded = await replayRevert(client, account.address, request, receipt)
    throw await fail(undefined, receipt.transactionHash, decoded)
  }

  const transactionHash = receipt.transactionHash
  if (isPreconfirmed(receipt)) {
    if (store && orderId !== undefined) record = await store.transition(orderId, 'preconfirmed', { transactionHash })
    await options.onPreconfirmed?.({ transactionHash, receipt })
    if ((options.waitFor ?? 'preconfirmed') === 'preconfirmed')
      return { state: 'preconfirmed', transactionHash, receipt, record }
    receipt = await waitForReceipt(client, transactionHash, { ...options, until: 'sealed' })
  }
  if (store && orderId !== undefined)
    record = await store.transition(orderId, 'captured', {
      transactionHash,
      blockHash: receipt.blockHash,
      blockNumber: receipt.blockNumber,
    })
  return { state: 'captured', transactionHash, receipt, record }
}

export declare namespace confirmCapture {
  type Options = { client: Client; store: PaymentStore; orderId: string }
}

/**
 * Moves a `preconfirmed` record to `captured` if its receipt now has a real
 * block hash; one look, no waiting. Returns the record as it stands.
 *
 * - JSON-RPC methods: `eth_getTransactionReceipt`
 */
export async function confirmCapture(options: confirmCapture.Options): Promise<PaymentRecord> {
  const { client, store, orderId } = options
  const record = await store.get(orderId)
  if (!record) throw new RecordNotFoundError({ orderId })
  if (record.state !== 'preconfirmed' || !record.transactionHash) return record
  const receipt = await waitForReceipt(client, record.transactionHash, { until: 'sealed', timeout: 0 }).catch(
    () => undefined,
  )
  if (!receipt) return record
  if (receipt.status !== 'success') return store.transition(orderId, 'failed', { reason: 'unknown' })
  return store.transition(orderId, 'captured', {
    transactionHash: receipt.transactionHash,
    blockHash: receipt.blockHash,
    blockNumber: receipt.blockNumber,
  })
}

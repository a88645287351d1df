import { type Address, type Client, type Hex, encodeFunctionData, verifyTypedData } from 'viem'
import { getBlock, readContract } from 'viem/actions'
import { authorizationTypes, tokenAbi } from './abi.js'
import { type Signer, signTypedDataWith } from './authorize.js'
import { signatureSecrets } from './capture.js'
import {
  AuthorizationExpiredError,
  RecordNotFoundError,
  RecordStateError,
  SignatureVerificationError,
  SignerNotSupportedError,
  TransactionRevertedError,
  redactError,
} from './errors.js'
import { type SendOptions, accountOf, decodeRevert, replayRevert, sendAndWait, splitSignature } from './send.js'
import type { PaymentStore } from './store.js'
import type { Authorization, PaymentRecord, TokenDomain } from './types.js'

/** The EIP-712 typed data of a `CancelAuthorization`. */
export function toCancelTypedData(domain: TokenDomain, authorizer: Address, nonce: Hex) {
  return {
    domain,
    types: authorizationTypes.CancelAuthorization,
    primaryType: 'CancelAuthorization' as const,
    message: { authorizer, nonce },
  }
}

export declare namespace signCancelAuthorization {
  type Options = {
    authorization: Authorization
    /** The payer's wallet (only the authorizer can cancel). */
    signer: Signer
    client?: Client | undefined
  }
}

/**
 * Has the payer sign `CancelAuthorization(authorizer, nonce)` and verifies it
 * locally before returning it.
 *
 * - JSON-RPC methods: `eth_signTypedData_v4` for JSON-RPC accounts
 */
export async function signCancelAuthorization(options: signCancelAuthorization.Options): Promise<Hex> {
  const { authorization, signer } = options
  const client =
    options.client ?? ('request' in signer && typeof signer.request === 'function' ? (signer as Client) : undefined)
  const typedData = toCancelTypedData(authorization.domain, authorization.from, authorization.nonce)
  const signature = await signTypedDataWith(signer, client, authorization.from, typedData as never)
  const valid = await verifyTypedData({ ...typedData, address: authorization.from, signature }).catch(() => false)
  if (!valid) throw new SignatureVerificationError({ from: authorization.from, primaryType: 'CancelAuthorization' })
  return signature
}

export declare namespace cancelAuthorization {
  type Options = SendOptions & {
    store: PaymentStore
    orderId: string
    /** Relays the cancel and pays its gas (usually the merchant). */
    wallet: Client
    /** Reads. @default wallet */
    client?: Client | undefined
    /** The payer's wallet, asked to sign; or pass `cancelSignature`. */
    signer?: Signer | undefined
    cancelSignature?: Hex | undefined
  }
  type ReturnType = { record: PaymentRecord; transactionHash: Hex }
}

/**
 * Cancels an authorization on chain: the payer signs `CancelAuthorization`,
 * the merchant relays `cancelAuthorization` before `validBefore`, and from then
 * on a capture reverts `FiatTokenV2: authorization is used or canceled`.
 * Unlike {@link voidAuthorization}, this kills the signature itself.
 *
 * - JSON-RPC methods: `eth_getBlockByNumber`, `eth_call`, `eth_signTypedData_v4`
 *   (JSON-RPC payers), then the send path of {@link capture}
 */
export async function cancelAuthorization(
  options: cancelAuthorization.Options,
): Promise<cancelAuthorization.ReturnType> {
  const { store, orderId, wallet } = options
  const client = options.client ?? wallet
  const record = await store.get(orderId)
  if (!record) throw new RecordNotFoundError({ orderId })
  if (!['authorized', 'failed', 'voided'].includes(record.state))
    throw new RecordStateError({ orderId, state: record.state, action: 'cancel' })
  const { authorization } = record
  const token = authorization.domain.verifyingContract

  // After the deadline the signature is dead anyway; a cancel would only burn gas.
  const { timestamp } = await getBlock(client, { blockTag: 'pending' })
  if (timestamp >= authorization.validBefore) {
    if (record.state !== 'voided') await store.transition(orderId, 'expired')
    throw new AuthorizationExpiredError({ validBefore: authorization.validBefore, now: timestamp })
  }
  const used = await readContract(client, {
    address: token,
    abi: tokenAbi,
    functionName: 'authorizationState',
    args: [authorization.from, authorization.nonce],
    blockTag: 'pending',
  })
  if (used)
    throw new TransactionRevertedError({
      action: 'cancel',
      reason: 'used-or-canceled',
      revertMessage: 'FiatTokenV2: authorization is used or canceled',
    })

  let signature = options.cancelSignature
  if (!signature) {
    if (!options.signer)
      throw new SignerNotSupportedError({ reason: 'pass the payer as `signer`, or a `cancelSignature`' })
    signature = await signCancelAuthorization({ authorization, signer: options.signer, client })
  }
  const parts = splitSignature(signature)
  const data = encodeFunctionData({
    abi: tokenAbi,
    functionName: 'cancelAuthorization',
    args: parts
      ? [authorization.from, authorization.nonce, parts.v, parts.r, parts.s]
      : [authorization.from, authorization.nonce, signature],
  } as never)
  const request = { to: token, data }
  const secrets = [...signatureSecrets(signature), ...signatureSecrets(record.signature)]
  let receipt: Awaited<ReturnType<typeof sendAndWait>>
  try {
    receipt = await sendAndWait(wallet, request, options)
  } catch (error) {
    const decoded = decodeRevert(error)
    if (!decoded) throw redactError(error, secrets)
    throw new TransactionRevertedError({
      action: 'cancel',
      reason: decoded.reason,
      revertMessage: decoded.revertMessage,
      cause: redactError(error, secrets),
    })
  }
  if (receipt.status !== 'success') {
    const decoded = await replayRevert(client, accountOf(wallet).address, request, receipt)
    throw new TransactionRevertedError({
      action: 'cancel',
      reason: decoded?.reason ?? 'unknown',
      revertMessage: decoded?.revertMessage,
      transactionHash: receipt.transactionHash,
    })
  }
  const next = await store.transition(orderId, 'canceled', { transactionHash: receipt.transactionHash })
  return { record: next, transactionHash: receipt.transactionHash }
}

/**
 * Marks the order so that the backend never submits its authorization. No
 * chain call: the signature stays valid on chain until `validBefore`, so a
 * `TransferWithAuthorization` can still be submitted by whoever holds it. Use
 * {@link cancelAuthorization} to kill the signature itself.
 */
export async function voidAuthorization(store: PaymentStore, orderId: string): Promise<PaymentRecord> {
  const record = await store.get(orderId)
  if (!record) throw new RecordNotFoundError({ orderId })
  if (record.state !== 'authorized' && record.state !== 'failed')
    throw new RecordStateError({ orderId, state: record.state, action: 'void' })
  return store.transition(orderId, 'voided')
}

/**
 * Moves every open (`authorized` or `failed`) record whose `validBefore` is
 * not after `timestamp` (chain time, Unix seconds) to `expired`.
 */
export async function expireAuthorizations(store: PaymentStore, timestamp: bigint): Promise<PaymentRecord[]> {
  const open = await store.list({ state: ['authorized', 'failed'] })
  const expired: PaymentRecord[] = []
  for (const record of open)
    if (record.authorization.validBefore <= timestamp) expired.push(await store.transition(record.orderId, 'expired'))
  return expired
}

import type { Address, Client } from 'viem'
import { call, getCode, readContract } from 'viem/actions'
import { tokenAbi } from '../payments/abi.js'
import { encodeCapture } from '../payments/capture.js'
import { checkBeforeCapture } from '../payments/check.js'
import { decodeRevert } from '../payments/send.js'
import type { Authorization } from '../payments/types.js'
import { type ExactPayment, parseExact } from './parse.js'
import { type Reason, failureOrder, reasonOfFailure, reasons } from './reasons.js'
import type { FacilitatorRequest, VerifyResponse } from './types.js'

export declare namespace verifyExact {
  type Options = {
    /** Reads the chain (devnet's JSON-RPC). */
    client: Client
    request: FacilitatorRequest
    /** The chain the client is on; a payment for another network is refused. */
    chainId: number
    /** The account that will send `transferWithAuthorization`. */
    submitter: Address
    /**
     * Seconds the authorization must still be valid for after the pending
     * block's time, so the settlement is not included too late.
     * @default 6 (the reference facilitator's margin)
     */
    validityMargin?: number | undefined
    /** The EIP-712 name and version of each token, read once. */
    domains?: Map<Address, Promise<TokenNames | undefined>> | undefined
  }
  type ReturnType =
    | { response: VerifyResponse & { isValid: true }; payment: ExactPayment; authorization: Authorization }
    | { response: VerifyResponse & { isValid: false }; payment?: ExactPayment | undefined }
}

type TokenNames = { name: string; version: string }

/**
 * Verifies an x402 `exact` EVM payment against the chain's `pending` state
 * (the pre-confirmed layer, 200 ms fresh on devnet): the payload's shape, the
 * scheme and network, the recipient and amount the resource server asked
 * for, the token's EIP-712 name and version, the signature, the nonce unused
 * (`authorizationState`), the validity window against the pending block's
 * time, the payer's balance, `paused()` and the blacklist, and finally an
 * `eth_call` of the `transferWithAuthorization` itself at `pending`. Reading
 * `pending` rather than `latest` is what refuses a payer who drained the funds
 * in a transaction that is pre-confirmed but not yet sealed.
 *
 * - JSON-RPC methods: `eth_call` (×6–8, at `pending`), `eth_getBlockByNumber`,
 *   `eth_chainId`, `eth_getCode` (an unknown asset only)
 */
export async function verifyExact(options: verifyExact.Options): Promise<verifyExact.ReturnType> {
  const { client, request, chainId, submitter } = options
  const { paymentPayload: payload, paymentRequirements: requirements } = request
  const fail = (invalidReason: Reason, invalidMessage: string, payment?: ExactPayment) => ({
    response: {
      isValid: false as const,
      invalidReason,
      invalidMessage,
      ...(payment ? { payer: payment.payer } : {}),
    },
    payment,
  })

  if (payload.x402Version !== 1 && payload.x402Version !== 2)
    return fail(reasons.invalidVersion, `x402 version ${String(payload.x402Version)} is not supported (1 and 2 are)`)
  if (payload.accepted?.scheme !== 'exact' || requirements.scheme !== 'exact')
    return fail(reasons.scheme, `only the "exact" scheme is supported, got "${String(requirements.scheme)}"`)
  if (payload.accepted.network !== requirements.network)
    return fail(
      reasons.network,
      `the payment is for ${String(payload.accepted.network)} but the requirements name ${String(requirements.network)}`,
    )
  const payment = parseExact(request)
  if ('error' in payment) return fail(reasons.invalidPayload, payment.error)
  if (payment.chainId !== chainId)
    return fail(reasons.network, `this facilitator settles on eip155:${chainId}, not ${payment.network}`, payment)
  if (payment.name === undefined || payment.version === undefined)
    return fail(reasons.missingDomain, 'paymentRequirements.extra must carry the token name and version', payment)
  if (payment.to !== payment.payTo)
    return fail(reasons.recipient, `the authorization pays ${payment.to}, not payTo ${payment.payTo}`, payment)
  if (payment.value !== payment.amount)
    return fail(reasons.value, `the authorization is for ${payment.value} units, the price is ${payment.amount}`, payment)

  const domains = options.domains ?? new Map()
  let names = domains.get(payment.asset)
  if (!names) {
    names = readNames(client, payment.asset)
    domains.set(payment.asset, names)
  }
  const token = await names
  if (!token) {
    domains.delete(payment.asset)
    const code = await getCode(client, { address: payment.asset, blockTag: 'pending' }).catch(() => undefined)
    return code && code !== '0x'
      ? fail(reasons.notEip3009, `${payment.asset} does not answer name() and version()`, payment)
      : fail(reasons.assetNotDeployed, `no contract at ${payment.asset}`, payment)
  }
  if (token.name !== payment.name)
    return fail(reasons.tokenName, `the token's name is "${token.name}", the requirements say "${payment.name}"`, payment)
  if (token.version !== payment.version)
    return fail(
      reasons.tokenVersion,
      `the token's version is "${token.version}", the requirements say "${payment.version}"`,
      payment,
    )

  const authorization: Authorization = {
    primaryType: 'TransferWithAuthorization',
    domain: { name: token.name, version: token.version, chainId, verifyingContract: payment.asset },
    from: payment.payer,
    to: payment.to,
    value: payment.value,
    validAfter: payment.validAfter,
    validBefore: payment.validBefore,
    nonce: payment.nonce,
  }
  const check = await checkBeforeCapture({
    client,
    authorization,
    signature: payment.signature,
    submitter,
    method: 'transferWithAuthorization',
  })
  if (!check.ok) {
    const first = failureOrder.find((reason) => check.failures.some((f) => f.reason === reason)) ?? 'unknown'
    return fail(reasonOfFailure[first], check.failures.map((f) => f.message).join(' '), payment)
  }
  const margin = BigInt(options.validityMargin ?? 6)
  if (payment.validBefore < check.timestamp + margin)
    return fail(
      reasons.validBefore,
      `the authorization expires at ${payment.validBefore}, less than ${margin} s after the pending block's time ${check.timestamp}`,
      payment,
    )

  // Everything the token checks, once more by running it: catches what the
  // reads above do not name (a token with other rules).
  try {
    await call(client, {
      account: submitter,
      to: payment.asset,
      data: encodeCapture(authorization, payment.signature, 'transferWithAuthorization'),
      blockTag: 'pending',
    })
  } catch (error) {
    const decoded = decodeRevert(error)
    return fail(
      decoded ? reasonOfFailure[decoded.reason] : reasons.simulation,
      `transferWithAuthorization reverts at pending: ${decoded?.revertMessage ?? (error as Error).message.split('\n')[0]}`,
      payment,
    )
  }
  return { response: { isValid: true, payer: payment.payer }, payment, authorization }
}

async function readNames(client: Client, token: Address): Promise<TokenNames | undefined> {
  const read = (functionName: 'name' | 'version') =>
    readContract(client, { address: token, abi: tokenAbi, functionName, blockTag: 'pending' })
  try {
    const [name, version] = await Promise.all([read('name'), read('version')])
    return { name, version }
  } catch {
    return undefined
  }
}

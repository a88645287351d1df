import { type Address, type Hex, getAddress, isAddress, isHex } from 'viem'
import type { ExactEvmPayload, FacilitatorRequest, PaymentPayload, PaymentRequirements } from './types.js'

/** A `/verify` or `/settle` body whose outer shape is wrong: answered with HTTP 400. */
export class RequestShapeError extends Error {
  override name = 'X402.RequestShapeError'
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A request in the v2 shape, and the network as the client named it (for the reply). */
export type ParsedRequest = FacilitatorRequest & { network: string }

/**
 * x402 v1's network names for the chains a devnet preset can reproduce (v2
 * uses CAIP-2 `eip155:<id>` instead); the ids are the chains' own.
 */
export const v1Networks: Record<string, number> = {
  'base-sepolia': 84532,
  base: 8453,
  ethereum: 1,
  sepolia: 11155111,
  polygon: 137,
  'polygon-amoy': 80002,
  avalanche: 43114,
  'avalanche-fuji': 43113,
}

/**
 * Checks the envelope the `HTTPFacilitatorClient` posts: `{ x402Version,
 * paymentPayload, paymentRequirements }`, both inner values objects. Their
 * fields are checked later, by {@link parseExact}, so that a bad field is an
 * `isValid: false` with a reason rather than a transport error.
 *
 * A v1 request (legacy `x402-express` / `x402-fetch` 1.x, or the v1 schemes
 * of the `@x402/*` packages) is rewritten into the v2 shape: `scheme` and
 * `network` move from the payload into `accepted`, `maxAmountRequired`
 * becomes `amount`, and a v1 network name becomes `eip155:<id>`.
 */
export function parseRequest(body: unknown): ParsedRequest {
  if (!isObject(body)) throw new RequestShapeError('the body must be a JSON object')
  const { x402Version, paymentPayload, paymentRequirements } = body
  if (!isObject(paymentPayload)) throw new RequestShapeError('paymentPayload must be an object')
  if (!isObject(paymentRequirements)) throw new RequestShapeError('paymentRequirements must be an object')
  const version = typeof x402Version === 'number' ? x402Version : (paymentPayload.x402Version as number)
  if (paymentPayload.x402Version === 1) {
    const caip2 = (network: unknown) =>
      typeof network === 'string' && network in v1Networks ? `eip155:${v1Networks[network]}` : network
    const requirements = {
      ...paymentRequirements,
      network: caip2(paymentRequirements.network),
      amount: paymentRequirements.maxAmountRequired,
    } as PaymentRequirements
    return {
      x402Version: version,
      network: String(paymentRequirements.network),
      paymentPayload: {
        x402Version: 1,
        accepted: { ...requirements, scheme: paymentPayload.scheme, network: caip2(paymentPayload.network) } as PaymentRequirements,
        payload: paymentPayload.payload as Record<string, unknown>,
      },
      paymentRequirements: requirements,
    }
  }
  return {
    x402Version: version,
    network: String(paymentRequirements.network),
    paymentPayload: paymentPayload as PaymentPayload,
    paymentRequirements: paymentRequirements as PaymentRequirements,
  }
}

/** An `exact` EVM payment, decoded to native types. */
export type ExactPayment = {
  payer: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
  signature: Hex
  payTo: Address
  amount: bigint
  asset: Address
  network: string
  chainId: number
  /** EIP-712 domain name and version from `requirements.extra`, when given. */
  name: string | undefined
  version: string | undefined
}

const uint = (value: unknown): bigint | undefined => {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(value)) return undefined
  const n = BigInt(value)
  return n < 2n ** 256n ? n : undefined
}

/**
 * Decodes the `exact` scheme's EIP-3009 payload and the requirements it
 * answers, or says which field is malformed. Numbers travel as decimal
 * strings (the client's `value`, `validAfter`, `validBefore`); anything else
 * is refused rather than guessed.
 */
export function parseExact(request: FacilitatorRequest): ExactPayment | { error: string } {
  const { paymentPayload, paymentRequirements: r } = request
  const payload = paymentPayload.payload as Partial<ExactEvmPayload> | undefined
  const a = payload?.authorization
  if (!isObject(payload) || !isObject(a)) return { error: 'payload.authorization is missing' }
  if (!isHex(payload.signature)) return { error: 'payload.signature must be hex' }
  for (const key of ['from', 'to'] as const)
    if (typeof a[key] !== 'string' || !isAddress(a[key], { strict: false }))
      return { error: `authorization.${key} must be an address` }
  if (!isHex(a.nonce) || a.nonce.length !== 66) return { error: 'authorization.nonce must be 32 bytes of hex' }
  const value = uint(a.value)
  const validAfter = uint(a.validAfter)
  const validBefore = uint(a.validBefore)
  if (value === undefined || validAfter === undefined || validBefore === undefined)
    return { error: 'authorization.value, validAfter and validBefore must be decimal strings' }
  const amount = uint(r.amount)
  if (amount === undefined) return { error: 'paymentRequirements.amount must be a decimal string' }
  for (const key of ['payTo', 'asset'] as const)
    if (typeof r[key] !== 'string' || !isAddress(r[key], { strict: false }))
      return { error: `paymentRequirements.${key} must be an address` }
  const match = typeof r.network === 'string' ? /^eip155:([0-9]{1,15})$/.exec(r.network) : null
  if (!match) return { error: `paymentRequirements.network must be eip155:<chain id>, got ${String(r.network)}` }
  const extra = isObject(r.extra) ? r.extra : {}
  return {
    payer: getAddress(a.from),
    to: getAddress(a.to),
    value,
    validAfter,
    validBefore,
    nonce: a.nonce,
    signature: payload.signature,
    payTo: getAddress(r.payTo),
    amount,
    asset: getAddress(r.asset),
    network: r.network,
    chainId: Number(match[1]),
    name: typeof extra.name === 'string' ? extra.name : undefined,
    version: typeof extra.version === 'string' ? extra.version : undefined,
  }
}

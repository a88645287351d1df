import type { Address, Hash, Hex } from 'viem'

/**
 * The x402 v2 wire shapes a facilitator reads and writes, as the pinned
 * `@x402/core` 2.27.0 `HTTPFacilitatorClient` sends and parses them. Written
 * out here so that `devnet/x402` depends on viem only; the published packages
 * stay development dependencies of the tests.
 */

/** What a resource server asks for (one entry of a 402's `accepts`). */
export type PaymentRequirements = {
  scheme: string
  /** CAIP-2, e.g. `eip155:84532`. */
  network: string
  /** Token units, decimal string. */
  amount: string
  /** The token contract. */
  asset: string
  payTo: string
  maxTimeoutSeconds: number
  /** For `exact` with EIP-3009: the token's EIP-712 `name` and `version`. */
  extra?: Record<string, unknown> | null | undefined
}

/** The `exact` scheme's EVM payload: a signed EIP-3009 `TransferWithAuthorization`. */
export type ExactEvmPayload = {
  signature: Hex
  authorization: {
    from: Address
    to: Address
    value: string
    validAfter: string
    validBefore: string
    nonce: Hash
  }
}

/** What the client sends back in its `PAYMENT-SIGNATURE` header. */
export type PaymentPayload = {
  x402Version: number
  resource?: { url: string } | null | undefined
  accepted: PaymentRequirements
  payload: Record<string, unknown>
  extensions?: Record<string, unknown> | null | undefined
}

/** Body of `POST /verify` and `POST /settle`. */
export type FacilitatorRequest = {
  x402Version: number
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
}

export type VerifyResponse = {
  isValid: boolean
  invalidReason?: string | undefined
  invalidMessage?: string | undefined
  payer?: Address | undefined
}

export type SettleResponse = {
  success: boolean
  errorReason?: string | undefined
  errorMessage?: string | undefined
  payer?: Address | undefined
  /** The settlement transaction hash; empty when nothing was sent. */
  transaction: Hash | ''
  network: string
  /** Token units moved, decimal string. */
  amount?: string | undefined
  /** Devnet's addition: whether `transaction` was answered pre-confirmed or sealed. */
  extra?: { receipt: 'preconfirmed' | 'sealed'; blockNumber: string } | undefined
}

/** Body of `GET /supported`. */
export type SupportedResponse = {
  kinds: { x402Version: number; scheme: string; network: string }[]
  extensions: string[]
  /** CAIP family → addresses that send settlements. */
  signers: Record<string, Address[]>
}

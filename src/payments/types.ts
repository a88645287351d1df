import type { Address, Hash, Hex } from 'viem'

/** Milliseconds since the Unix epoch, like `Date.now`; injected for tests. */
export type Clock = () => number

/** Returns 32 fresh bytes for an authorization nonce; injected for tests. */
export type NonceSource = () => Hex

/** The EIP-712 domain of a USDC-like token (FiatToken V2_2 layout). */
export type TokenDomain = {
  name: string
  version: string
  chainId: number
  verifyingContract: Address
}

/**
 * The two EIP-3009 transfer authorizations. The type hash decides which token
 * function accepts the signature: `ReceiveWithAuthorization` only
 * `receiveWithAuthorization` (submitted by the payee), `TransferWithAuthorization`
 * only `transferWithAuthorization` (submitted by anyone, as in x402).
 */
export type AuthorizationPrimaryType = 'ReceiveWithAuthorization' | 'TransferWithAuthorization'

/** The token function that captures an authorization. */
export type CaptureMethod = 'receiveWithAuthorization' | 'transferWithAuthorization'

/** An unsigned EIP-3009 authorization: everything the payer signs, plus the domain. */
export type Authorization = {
  primaryType: AuthorizationPrimaryType
  domain: TokenDomain
  from: Address
  to: Address
  /** Token units (6 decimals for USDC). */
  value: bigint
  /** Unix seconds; the token requires `block.timestamp > validAfter`. */
  validAfter: bigint
  /** Unix seconds; the token requires `block.timestamp < validBefore`. */
  validBefore: bigint
  nonce: Hex
}

/**
 * Record states. `authorized → preconfirmed → captured`; `authorized →
 * voided | canceled | expired`; any open state `→ failed`. The indexer may
 * move a `captured` record back to `authorized` when a reorg removes the
 * capture, and forward again when it is re-included.
 */
export type PaymentState =
  | 'authorized'
  | 'preconfirmed'
  | 'captured'
  | 'voided'
  | 'canceled'
  | 'expired'
  | 'failed'

/** Why a capture failed or would fail, in the token's terms. */
export type FailureReason =
  | 'expired'
  | 'not-yet-valid'
  | 'used-or-canceled'
  | 'invalid-signature'
  | 'paused'
  | 'blacklisted'
  | 'insufficient-balance'
  | 'caller-not-payee'
  | 'primary-type-mismatch'
  | 'chain-mismatch'
  // Permit checkout (contracts/PermitCheckout.sol) and spend permissions
  // (contracts/SpendPermissionManager.sol).
  | 'over-cap'
  | 'already-captured'
  | 'voided'
  | 'caller-not-merchant'
  | 'caller-not-party'
  | 'caller-not-owner'
  | 'insufficient-allowance'
  | 'permit-unusable'
  | 'over-allowance'
  | 'revoked'
  | 'caller-not-spender'
  | 'not-approved'
  | 'unknown'

/** One timestamped state change. */
export type PaymentTransition = {
  state: PaymentState
  /** Milliseconds since the epoch, from the store's clock. */
  at: number
  reason?: FailureReason | string | undefined
  transactionHash?: Hash | undefined
  blockHash?: Hash | undefined
  blockNumber?: bigint | undefined
}

/** What the merchant backend keeps per order. */
export type PaymentRecord = {
  orderId: string
  authorization: Authorization
  /** The payer's signature: a bearer credential until `validBefore`; never log it. */
  signature: Hex
  state: PaymentState
  /** Set while `failed`. */
  reason?: FailureReason | string | undefined
  transactionHash?: Hash | undefined
  blockHash?: Hash | undefined
  blockNumber?: bigint | undefined
  createdAt: number
  updatedAt: number
  history: PaymentTransition[]
}

/** A token log kept by the indexer, keyed by `(blockHash, logIndex)`. */
export type TokenLogRow = {
  blockHash: Hash
  logIndex: number
  blockNumber: bigint
  transactionHash: Hash
  event: 'Transfer' | 'AuthorizationUsed' | 'AuthorizationCanceled'
  /** `from` of a Transfer, `authorizer` of the two authorization events. */
  from: Address
  /** Transfer only. */
  to?: Address | undefined
  /** Transfer only. */
  value?: bigint | undefined
  /** Authorization events only. */
  nonce?: Hex | undefined
}

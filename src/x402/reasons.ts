import type { FailureReason } from '../payments/types.js'

/**
 * The `invalidReason` / `errorReason` strings of the `exact` EVM scheme, as
 * the reference facilitator in `@x402/evm` 2.27.0 names them, so a resource
 * server that switches on them sees the same words from devnet. The two
 * marked "devnet" refine the reference's `…_transaction_simulation_failed`
 * (a paused token or a blacklisted party only shows there as a failed
 * simulation) into the cause.
 */
export const reasons = {
  invalidPayload: 'invalid_payload',
  invalidVersion: 'invalid_x402_version',
  scheme: 'invalid_exact_evm_scheme',
  network: 'invalid_exact_evm_network_mismatch',
  missingDomain: 'invalid_exact_evm_missing_eip712_domain',
  tokenName: 'invalid_exact_evm_token_name_mismatch',
  tokenVersion: 'invalid_exact_evm_token_version_mismatch',
  assetNotDeployed: 'asset_not_deployed_contract',
  notEip3009: 'invalid_exact_evm_eip3009_not_supported',
  recipient: 'invalid_exact_evm_recipient_mismatch',
  value: 'invalid_exact_evm_payload_authorization_value_mismatch',
  signature: 'invalid_exact_evm_signature',
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
  balance: 'invalid_exact_evm_insufficient_balance',
  simulation: 'invalid_exact_evm_transaction_simulation_failed',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  pending: 'settlement_pending',
  /** devnet */
  paused: 'invalid_exact_evm_token_paused',
  /** devnet */
  blacklisted: 'invalid_exact_evm_blacklisted',
} as const

export type Reason = (typeof reasons)[keyof typeof reasons]

/** The x402 reason for each of `devnet/payments`' pre-capture failures. */
export const reasonOfFailure: Record<FailureReason, Reason> = {
  expired: reasons.validBefore,
  'not-yet-valid': reasons.validAfter,
  'used-or-canceled': reasons.nonceUsed,
  'invalid-signature': reasons.signature,
  paused: reasons.paused,
  blacklisted: reasons.blacklisted,
  'insufficient-balance': reasons.balance,
  'chain-mismatch': reasons.network,
  // transferWithAuthorization has no payee-only caller and one primary type
  'caller-not-payee': reasons.simulation,
  'primary-type-mismatch': reasons.signature,
  // The permit checkout's and the spend-permission manager's reasons: a
  // transferWithAuthorization never reverts with them.
  'over-cap': reasons.simulation,
  'already-captured': reasons.simulation,
  voided: reasons.simulation,
  'caller-not-merchant': reasons.simulation,
  'caller-not-party': reasons.simulation,
  'caller-not-owner': reasons.simulation,
  'insufficient-allowance': reasons.simulation,
  'permit-unusable': reasons.simulation,
  'over-allowance': reasons.simulation,
  revoked: reasons.simulation,
  'caller-not-spender': reasons.simulation,
  'not-approved': reasons.simulation,
  unknown: reasons.simulation,
}

/**
 * When several checks fail, the one a payer can least fix wins: a bad
 * signature or a spent nonce says more than the balance that also fell.
 */
export const failureOrder: FailureReason[] = [
  'chain-mismatch',
  'invalid-signature',
  'primary-type-mismatch',
  'used-or-canceled',
  'expired',
  'not-yet-valid',
  'paused',
  'blacklisted',
  'insufficient-balance',
  'caller-not-payee',
  'unknown',
]

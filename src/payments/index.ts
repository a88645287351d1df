/**
 * `devnet/payments`: EIP-3009 card-style payments on a USDC-like token, over
 * JSON-RPC only. The buyer signs an authorization (no transaction); the
 * merchant stores it, checks it and captures it later. A signature is not a
 * reservation of funds: only a successful capture guarantees payment.
 *
 * Works unchanged against devnet and any chain with FiatToken V2_2-compatible
 * EIP-3009 (USDC).
 *
 * @packageDocumentation
 */
export { tokenAbi, authorizationTypes } from './abi.js'
export { defaultDecimals, formatAmount, parseAmount } from './amount.js'
export {
  captureMethodOf,
  createAuthorization,
  defaultValidAfterSkew,
  defaultValidFor,
  randomNonce,
  signAuthorization,
  toTypedData,
  verifyAuthorizationSignature,
  type Signer,
} from './authorize.js'
export {
  cancelAuthorization,
  expireAuthorizations,
  signCancelAuthorization,
  toCancelTypedData,
  voidAuthorization,
} from './cancel.js'
export { capture, confirmCapture, encodeCapture } from './capture.js'
export { checkBeforeCapture } from './check.js'
export { readTokenDomain } from './domain.js'
export {
  AuthorizationExpiredError,
  CaptureCheckError,
  InvalidAmountError,
  InvalidNonceError,
  InvalidTransitionError,
  InvalidValidityWindowError,
  NonceReusedError,
  OrderExistsError,
  PaymentsError,
  ReceiptTimeoutError,
  RecordNotFoundError,
  RecordStateError,
  SignatureVerificationError,
  SignerNotSupportedError,
  TransactionRevertedError,
} from './errors.js'
export {
  createRpcLogSource,
  createTokenIndexer,
  type LogSource,
  type SourceLog,
} from './indexer.js'
export { decodeRevert, isPreconfirmed, revertReasons } from './send.js'
export { createSqliteStore, defaultStorePath } from './sqlite.js'
export { applyTransition, canTransition, transitions } from './states.js'
export { createStore, createMemoryStore, redactRecord, type PaymentStore } from './store.js'
export type {
  Authorization,
  AuthorizationPrimaryType,
  CaptureMethod,
  Clock,
  FailureReason,
  NonceSource,
  PaymentRecord,
  PaymentState,
  PaymentTransition,
  TokenDomain,
  TokenLogRow,
} from './types.js'

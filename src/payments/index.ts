/**
 * `devnet/payments`: EIP-3009 card-style payments on a USDC-like token, over
 * JSON-RPC only. The buyer signs an authorization (no transaction); the
 * merchant stores it, checks it and captures it later. A signature is not a
 * reservation of funds: only a successful capture guarantees payment.
 *
 * Works unchanged against devnet and any chain with FiatToken V2_2-compatible
 * EIP-3009 (USDC).
 *
 * Also the other payment paths: a permit checkout (EIP-2612 permit for a cap,
 * the final amount captured later through contracts/PermitCheckout.sol) and
 * spend permissions (recurring charges from a smart account through
 * contracts/SpendPermissionManager.sol), both predeployed on devnet.
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
export {
  checkBeforeCheckoutCapture,
  captureCheckoutOrder,
  encodeCheckoutCapture,
} from './checkoutCapture.js'
export {
  checkoutTypes,
  createCheckoutOrder,
  signCheckoutOrder,
  toOrderId,
  toOrderStruct,
  toOrderTypedData,
  toPermitTypedData,
  type CheckoutOrder,
  type CheckoutSignatures,
} from './checkoutOrder.js'
export { readCheckoutOrderState, voidCheckoutOrder, type CheckoutOrderState } from './checkoutVoid.js'
export { predeployAddresses } from '../config/predeploys.js'
export { createSmartAccount, getSmartAccountAddress } from './smartAccount.js'
export { chargeSpendPermission, checkBeforeCharge, encodeCharge, readSpendPermission } from './spendCharge.js'
export {
  createSpendPermission,
  signSpendPermission,
  spendPermissionTypes,
  toSpendPermissionStruct,
  toSpendPermissionTypedData,
  type SpendPermission,
} from './spendPermission.js'
export { revokeSpendPermission } from './spendRevoke.js'
export { submitCall } from './submit.js'
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

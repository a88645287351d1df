/**
 * `devnet/x402`: an x402 facilitator for the `exact` scheme on EVM
 * (EIP-3009 `transferWithAuthorization`), talking to the chain over JSON-RPC
 * only. Point the published x402 packages' `HTTPFacilitatorClient` at it and
 * run a devnet with `--preset base-sepolia`: clients and resource servers work
 * unmodified, and payments settle on devnet with the pre-confirmed receipt.
 *
 * @packageDocumentation
 */
export { createFacilitator, type Facilitator } from './facilitator.js'
export { parseExact, parseRequest, RequestShapeError, v1Networks, type ExactPayment, type ParsedRequest } from './parse.js'
export { failureOrder, reasonOfFailure, reasons, type Reason } from './reasons.js'
export { startFacilitator } from './server.js'
export { settleExact, type SettleWaitFor } from './settle.js'
export type {
  ExactEvmPayload,
  FacilitatorRequest,
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from './types.js'
export { verifyExact } from './verify.js'

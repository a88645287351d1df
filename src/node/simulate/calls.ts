import type { Common, StateManagerInterface } from '../../evm/engine.js'
import type { TypedTransaction } from '../../evm/engine.js'
import { type Account, type Address as EthAddress, KECCAK256_NULL, createAddressFromString } from '../../evm/engine.js'
import type { Address, Hex } from 'viem'
import { getAddress } from 'viem/utils'
import { type CallRequest, classifyEngineError, createCallTx, freezeCallTx } from '../../evm/engine.js'
import { maxTxGas } from '../call.js'
import { SimulateError } from '../errors.js'

const zeroAddress = '0x0000000000000000000000000000000000000000' as Address
const maxUint64 = (1n << 64n) - 1n
/** EIP-4844: gas per blob. */
const blobGas = 131_072n

/** A call turned into the unsigned transaction the block will carry. */
export type PreparedCall = {
  tx: TypedTransaction
  from: Address
  /** `from`, parsed once for the state reads that follow. */
  sender: EthAddress
  /** The sender's nonce and whether it has code, as read before the call (nothing changes them before it runs). */
  stateNonce: bigint
  senderHasCode: boolean
  /** Whether geth would skip fee checks and payment: no validation and no fee fields (vm.Config.NoBaseFee). */
  feeless: boolean
}

/** The block a call is prepared for: what the defaults and checks read. */
export type CallContext = {
  common: Common
  state: StateManagerInterface
  validation: boolean
  baseFee: bigint | undefined
  blobBaseFee: bigint | undefined
  gasLimit: bigint
  gasUsed: bigint
  /** What is left of the request-wide gas budget (the RPC gas cap). */
  budget: bigint
}

/** A transaction-level failure of the whole request, worded as geth's `applyMessage` words it. */
export const txError = (code: number, message: string, gas: bigint) =>
  new SimulateError(code, `err: ${message} (supplied gas ${gas})`)

/**
 * Fills a call's defaults and runs geth's pre-execution checks
 * (`transaction_args.go` CallDefaults, `state_transition.go` preCheck/buyGas)
 * in geth's order, so a refused call gets geth's code: the sender's nonce,
 * gas defaulting to what is left of the block then clamped to the budget
 * (more than the block has left is -38015), fees defaulting to zero, nonce
 * checks only under validation (-38010/-38011), fee cap against the base fee
 * (-38012) unless fee-less without validation, then the balance (-38014),
 * counted on the fee cap as geth counts it. Intrinsic gas is left to the VM,
 * whose error `vmError` maps.
 */
export async function prepareCall(call: CallRequest, ctx: CallContext): Promise<PreparedCall> {
  const from = call.from ?? zeroAddress
  const chainId = ctx.common.chainId()
  if (call.chainId !== undefined && call.chainId !== chainId)
    throw new SimulateError(-32000, `chainId does not match node's (have=${call.chainId}, want=${chainId})`)
  const sender = createAddressFromString(from)
  const account = await ctx.state.getAccount(sender)
  const stateNonce = account?.nonce ?? 0n
  const nonce = call.nonce ?? stateNonce

  const remaining = ctx.gasLimit - ctx.gasUsed
  let gas = call.gas ?? remaining
  if (gas > remaining) throw new SimulateError(-38015, `block gas limit reached: remaining: ${remaining}, required: ${gas}`)
  // No EIP-7825 cap here: geth builds simulated calls with SkipTransactionChecks, and the recorded Osaka cases carry 50M.
  if (gas > ctx.budget) gas = ctx.budget

  // geth's ToTransaction(DynamicFeeTxType): an authorization list makes 0x4, blob hashes 0x3, a lone gas price legacy.
  const type =
    call.type ??
    (call.authorizationList
      ? 4
      : call.blobVersionedHashes
        ? 3
        : call.gasPrice !== undefined && call.maxFeePerGas === undefined
          ? call.accessList ? 1 : 0
          : 2)
  const legacy = type === 0 || type === 1
  const feeCap = legacy ? (call.gasPrice ?? 0n) : (call.maxFeePerGas ?? 0n)
  const tip = legacy ? feeCap : (call.maxPriorityFeePerGas ?? 0n)
  const blobFeeCap = call.maxFeePerBlobGas ?? 0n
  const feeless = !ctx.validation && feeCap === 0n && tip === 0n
  // The checksummed sender, for error messages only (a keccak: computed when one is thrown).
  const who = { toString: () => getAddress(from) }

  if (ctx.validation) {
    if (stateNonce < nonce) throw txError(-38011, `nonce too high: address ${who}, tx: ${nonce} state: ${stateNonce}`, gas)
    if (stateNonce > nonce) throw txError(-38010, `nonce too low: address ${who}, tx: ${nonce} state: ${stateNonce}`, gas)
    if (stateNonce === maxUint64) throw txError(-32603, `nonce has max value: address ${who}, nonce: ${stateNonce}`, gas)
  }
  if (tip > feeCap)
    throw txError(-32602, `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`, gas)
  if (!feeless && ctx.baseFee !== undefined && feeCap < ctx.baseFee)
    throw txError(-38012, `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap}, baseFee: ${ctx.baseFee}`, gas)
  const blobs = BigInt(call.blobVersionedHashes?.length ?? 0)
  if (type === 3) {
    if (blobs === 0n) throw txError(-32603, 'blob transaction missing blob hashes', gas)
    if (!(feeless && blobFeeCap === 0n) && ctx.blobBaseFee !== undefined && blobFeeCap < ctx.blobBaseFee)
      throw txError(-32603, `max fee per blob gas less than block blob gas fee: address ${who} blobGasFeeCap: ${blobFeeCap}, blobBaseFee: ${ctx.blobBaseFee}`, gas)
  }
  const have = account?.balance ?? 0n
  const want = gas * feeCap + (call.value ?? 0n) + blobs * blobGas * blobFeeCap
  if (have < want) throw txError(-38014, `insufficient funds for gas * price + value: address ${who} have ${have} want ${want}`, gas)

  // ethereumjs refuses to construct an Osaka transaction over 2^24 gas (EIP-7825) or one at nonce 2^64-1
  // (EIP-2681); geth's simulated calls skip both checks. Build within the limits, then set the real values.
  const liftGas = ctx.common.isActivatedEIP(7825) && gas > maxTxGas
  const liftNonce = nonce === maxUint64
  // The call with its defaults filled, every field written out (a literal that spreads another takes V8's slow
  // copy path, per call): fees as the type reads them, a legacy call's gas price, a typed call's cap and tip.
  const within: CallRequest = {
    from,
    to: call.to,
    gas: liftGas ? maxTxGas : gas,
    gasPrice: legacy ? feeCap : undefined,
    maxFeePerGas: legacy ? call.maxFeePerGas : feeCap,
    maxPriorityFeePerGas: legacy ? call.maxPriorityFeePerGas : tip,
    maxFeePerBlobGas: call.maxFeePerBlobGas,
    value: call.value,
    data: call.data,
    nonce: liftNonce ? 0n : nonce,
    accessList: call.accessList,
    authorizationList: call.authorizationList,
    blobVersionedHashes: call.blobVersionedHashes,
    type,
    chainId: call.chainId,
  }
  let tx: TypedTransaction
  try {
    tx = createCallTx(ctx.common, within, { nonce: within.nonce!, gas: within.gas! }, sender)
    if (liftGas) (tx as { gasLimit: bigint }).gasLimit = gas
    if (liftNonce) (tx as { nonce: bigint }).nonce = nonce
    // Frozen once its fields are final (and its serialized form written, for the hash the answer reports).
    freezeCallTx(tx)
  } catch (error) {
    const { reason, message } = classifyEngineError(error)
    if (reason === 'initcode-too-large') throw txError(-38025, `max initcode size exceeded: ${message}`, gas)
    throw txError(-32603, message, gas)
  }
  return { tx, from, sender, stateNonce, senderHasCode: account?.isContract() ?? false, feeless }
}

/** Maps an error the VM threw before executing (a refused transaction) to geth's code and words. */
export function vmError(error: unknown, gas: bigint): SimulateError {
  const refused = classifyEngineError(error)
  if (refused.reason === 'intrinsic-gas') return txError(-38013, `intrinsic gas too low: have ${gas}, want ${refused.minimum}`, gas)
  if (refused.reason === 'fee-below-base-fee') return txError(-38012, 'max fee per gas less than block base fee', gas)
  if (refused.reason === 'insufficient-funds') return txError(-38014, 'insufficient funds for gas * price + value', gas)
  return txError(-32603, refused.message, gas)
}

/**
 * Runs `fn` with the sender's code hidden from the VM's EIP-3607 check, once:
 * geth skips the "sender is not an EOA" check in eth_simulateV1 even under
 * validation, ethereumjs has no switch for it. The first read of the sender's
 * `codeHash` in runTx is that check; every later read (the account written
 * back, the code the call runs) sees the real hash. `senderIsContract` is
 * what prepareCall read: nothing runs between the two.
 */
export function withoutEoaCheck<T>(
  state: StateManagerInterface,
  address: EthAddress,
  /** Whether the sender has code now (prepareCall read it): a sender without runs as it is. */
  hasCode: boolean,
  fn: () => Promise<T>,
): Promise<T> {
  // fn's own promise, not one more async layer around it (a microtask per call).
  if (!hasCode) return fn()
  return hidingSenderCode(state, address, fn)
}

async function hidingSenderCode<T>(state: StateManagerInterface, address: EthAddress, fn: () => Promise<T>): Promise<T> {
  const original = state.getAccount
  let armed = true
  state.getAccount = async function (this: StateManagerInterface, target) {
    const found = await original.call(this, target)
    if (!armed || found === undefined || !target.equals(address)) return found
    armed = false
    hideCodeHashOnce(found)
    return found
  }
  try {
    return await fn()
  } finally {
    state.getAccount = original
  }
}

function hideCodeHashOnce(account: Account) {
  const real = account.codeHash
  let hidden = true
  Object.defineProperty(account, 'codeHash', {
    configurable: true,
    get: () => {
      if (!hidden) return real
      hidden = false
      return KECCAK256_NULL
    },
    set: (value: Uint8Array) => {
      hidden = false
      Object.defineProperty(account, 'codeHash', { configurable: true, writable: true, value })
    },
  })
}

export type { Hex }

import type { Block } from '../evm/engine.js'
import type { Common } from '../evm/engine.js'
import type { StateManagerInterface } from '../evm/engine.js'
import { Account, createAddressFromString, hexToBytes, setLengthLeft } from '../evm/engine.js'
import type { VM } from '../evm/engine.js'
import type { Address, Hex } from 'viem'
import { decodeErrorResult } from 'viem/utils'
import {
  type BlockEnv,
  type CallOutcome,
  type CallRequest,
  blockFromEnv,
  callBlock,
  createCallTx,
  executeTx,
  hasFees,
} from '../evm/engine.js'
import { ExecutionFailedError, ExecutionRevertedError, InsufficientFundsError, InvalidInputError } from './errors.js'
import type { View } from './views.js'

/** Per-account state override (eth_call's third parameter, eth_simulateV1's stateOverrides). */
export type AccountOverride = {
  balance?: bigint | undefined
  nonce?: bigint | undefined
  code?: Hex | undefined
  state?: Record<Hex, Hex> | undefined
  stateDiff?: Record<Hex, Hex> | undefined
  movePrecompileToAddress?: Address | undefined
}
export type StateOverrides = Record<Address, AccountOverride>

/** Block override (eth_call's fourth parameter, eth_simulateV1's blockOverrides). */
export type BlockOverrides = {
  number?: bigint | undefined
  time?: bigint | undefined
  gasLimit?: bigint | undefined
  feeRecipient?: Address | undefined
  prevRandao?: Hex | undefined
  baseFeePerGas?: bigint | undefined
  blobBaseFee?: bigint | undefined
}

/** Writes state overrides into `state` (inside the caller's checkpoint). */
export async function applyStateOverrides(state: StateManagerInterface, overrides: StateOverrides) {
  for (const [addr, o] of Object.entries(overrides).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const address = createAddressFromString(addr)
    if (o.state && o.stateDiff) throw new InvalidInputError(`account ${addr} has both 'state' and 'stateDiff'`)
    const account = (await state.getAccount(address)) ?? new Account()
    if (o.balance !== undefined) account.balance = o.balance
    if (o.nonce !== undefined) account.nonce = o.nonce
    await state.putAccount(address, account)
    if (o.code !== undefined) await state.putCode(address, hexToBytes(o.code))
    if (o.state) {
      await state.clearStorage(address)
      for (const [slot, value] of Object.entries(o.state))
        await state.putStorage(address, setLengthLeft(hexToBytes(slot as Hex), 32), hexToBytes(value))
    }
    if (o.stateDiff)
      for (const [slot, value] of Object.entries(o.stateDiff))
        await state.putStorage(address, setLengthLeft(hexToBytes(slot as Hex), 32), hexToBytes(value))
  }
}

export function applyBlockOverrides(env: BlockEnv, o: BlockOverrides | undefined): BlockEnv {
  if (!o) return env
  return {
    ...env,
    number: o.number ?? env.number,
    timestamp: o.time ?? env.timestamp,
    gasLimit: o.gasLimit ?? env.gasLimit,
    coinbase: o.feeRecipient ?? env.coinbase,
    prevRandao: o.prevRandao ?? env.prevRandao,
    baseFeePerGas: o.baseFeePerGas ?? env.baseFeePerGas,
  }
}

/** The revert reason of Error(string) / Panic(uint256) payloads, as geth words it. */
export function revertReason(data: Hex): string | undefined {
  if (data.length < 10) return undefined
  try {
    const decoded = decodeErrorResult({ data })
    if (decoded.errorName === 'Error') return String(decoded.args?.[0])
    if (decoded.errorName === 'Panic') {
      const code = decoded.args?.[0] as bigint
      return panicReasons[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`
    }
  } catch {}
  return undefined
}

const panicReasons: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
}

/** Throws the JSON-RPC shaped error of a failed call: code 3 for a revert, -32000 for other VM errors. */
export function throwIfFailed(outcome: Pick<CallOutcome, 'returnData' | 'reverted' | 'error'>) {
  if (outcome.reverted) throw new ExecutionRevertedError(outcome.returnData, revertReason(outcome.returnData))
  if (outcome.error) throw new ExecutionFailedError(outcome.error)
}

/** EIP-7825 (Osaka): the most gas one transaction may carry. */
export const maxTxGas = 1n << 24n

export type CallOptions = {
  stateOverrides?: StateOverrides | undefined
  blockOverrides?: BlockOverrides | undefined
  gasCap: bigint
  reportAccessList?: boolean | undefined
}

/**
 * Runs one call as geth's eth_call does: a message from `from` (no signature,
 * nonce unchecked), fee-less calls under a zero base fee, a value the sender
 * cannot pay refused, gas defaulting to the block gas limit capped by the
 * RPC gas cap.
 */
export async function runCall(
  common: Common,
  vm: VM,
  view: View,
  request: CallRequest,
  options: CallOptions,
): Promise<CallOutcome> {
  const state = vm.stateManager
  await state.checkpoint()
  try {
    if (options.stateOverrides) await applyStateOverrides(state, options.stateOverrides)
    let env = applyBlockOverrides(view.env, options.blockOverrides)
    let block: Block
    if (options.blockOverrides) {
      if (!hasFees(request)) env = { ...env, baseFeePerGas: env.baseFeePerGas === undefined ? undefined : 0n }
      block = blockFromEnv(common, env)
    } else block = callBlock(common, env, !hasFees(request))
    const from = createAddressFromString(request.from ?? '0x0000000000000000000000000000000000000000')
    const sender = await state.getAccount(from)
    let gas = request.gas ?? env.gasLimit
    if (gas > options.gasCap) gas = options.gasCap
    // EIP-7825 (Osaka): no transaction may carry more than 2^24 gas; calls are capped like geth caps them.
    if (common.isActivatedEIP(7825) && gas > maxTxGas) gas = maxTxGas
    const tx = createCallTx(common, { ...request, gas }, { nonce: sender?.nonce ?? 0n, gas })
    const balance = sender?.balance ?? 0n
    const feeCap = request.maxFeePerGas ?? request.gasPrice ?? 0n
    const cost = gas * feeCap + (request.value ?? 0n)
    if (balance < cost) throw new InsufficientFundsError(from.toString(), balance, cost)
    return await executeTx(vm, block, tx, {
      commit: false,
      skipNonce: true,
      skipBalance: false,
      reportAccessList: options.reportAccessList ?? false,
      skipSenderCodeCheck: true,
    })
  } finally {
    await state.revert()
  }
}

/**
 * geth's gas estimation (eth/gasestimator): one run at the cap, a plain
 * transfer tried at 21000 first, then an optimistic guess of 64/63 of the
 * gas used, then a binary search that stops within 1.5%.
 */
export async function estimateGas(
  common: Common,
  vm: VM,
  view: View,
  request: CallRequest,
  options: CallOptions,
): Promise<bigint> {
  const txGas = 21_000n
  let hi = request.gas !== undefined && request.gas >= txGas ? request.gas : view.env.gasLimit
  const feeCap = request.maxFeePerGas ?? request.gasPrice
  if (feeCap !== undefined && feeCap > 0n) {
    const account = await vm.stateManager.getAccount(createAddressFromString(request.from ?? '0x0000000000000000000000000000000000000000'))
    let available = account?.balance ?? 0n
    const value = request.value ?? 0n
    if (value > available) throw new InsufficientFundsError(request.from ?? '0x0', available, value)
    available -= value
    const allowance = available / feeCap
    if (hi > allowance) hi = allowance
  }
  if (options.gasCap !== 0n && hi > options.gasCap) hi = options.gasCap
  if (common.isActivatedEIP(7825) && hi > maxTxGas) hi = maxTxGas
  const run = async (gas: bigint) => {
    try {
      const outcome = await runCall(common, vm, view, { ...request, gas }, options)
      return { failed: outcome.status === 0, outcome }
    } catch (error) {
      if (/INTRINSIC_GAS_TOO_LOW|intrinsic/i.test((error as Error).message)) return { failed: true, outcome: undefined }
      throw error
    }
  }
  if ((!request.data || request.data === '0x') && request.to) {
    const code = await vm.stateManager.getCode(createAddressFromString(request.to))
    if (code.length === 0) {
      const { failed } = await run(txGas)
      if (!failed) return txGas
    }
  }
  const first = await run(hi)
  if (first.failed) {
    if (first.outcome && first.outcome.error !== 'out of gas') throwIfFailed(first.outcome)
    throw new InvalidInputError(`gas required exceeds allowance (${hi})`)
  }
  let lo = first.outcome!.gasUsed - 1n
  const optimistic = ((first.outcome!.maxUsedGas + 2300n) * 64n) / 63n
  if (optimistic < hi) {
    const { failed } = await run(optimistic)
    if (!failed) hi = optimistic
    else lo = optimistic
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < 0.015) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n
    const { failed } = await run(mid)
    if (failed) lo = mid
    else hi = mid
  }
  return hi
}

import { type Client, type Hex, encodeFunctionData, isAddressEqual } from 'viem'
import { getBlock, readContract } from 'viem/actions'
import { spendPermissionManagerAbi } from '../artifacts/spendPermissionManager.js'
import { tokenAbi } from './abi.js'
import { formatAmount, parseAmount } from './amount.js'
import { CaptureCheckError } from './errors.js'
import { type SpendPermission, toSpendPermissionStruct } from './spendPermission.js'
import { submitCall } from './submit.js'
import type { FailureReason } from './types.js'

export declare namespace readSpendPermission {
  type ReturnType = {
    approved: boolean
    revoked: boolean
    /** Chain time the answer is for (the pending block's). */
    timestamp: bigint
    /** `active` inside [start, end); `remaining` is 0 outside it. */
    status: 'not-started' | 'active' | 'ended'
    /** The current period, Unix seconds, end exclusive (undefined outside [start, end)). */
    periodStart: number | undefined
    periodEnd: number | undefined
    /** Charged in the current period, in token units. */
    spent: bigint
    /** What the spender may still charge in the current period (0 once revoked). */
    remaining: bigint
  }
}

/**
 * Where a permission stands at the pending block: approved or revoked, the
 * current period (boundaries follow chain time, so `evm_increaseTime` moves
 * them) and what is left of its allowance.
 *
 * - JSON-RPC methods: `eth_call` (×2–3, at `pending`), `eth_getBlockByNumber`
 */
export async function readSpendPermission(options: {
  client: Client
  permission: SpendPermission
}): Promise<readSpendPermission.ReturnType> {
  const { client, permission } = options
  const read = <result>(functionName: string) =>
    readContract(client, {
      address: permission.domain.verifyingContract,
      abi: spendPermissionManagerAbi,
      functionName,
      args: [toSpendPermissionStruct(permission)],
      blockTag: 'pending',
    } as never) as Promise<result>
  const [approved, revoked, block] = await Promise.all([
    read<boolean>('isApproved'),
    read<boolean>('isRevoked'),
    getBlock(client, { blockTag: 'pending' }),
  ])
  const timestamp = block.timestamp
  const base = { approved, revoked, timestamp, periodStart: undefined, periodEnd: undefined, spent: 0n, remaining: 0n }
  if (timestamp < BigInt(permission.start)) return { ...base, status: 'not-started' }
  if (timestamp >= BigInt(permission.end)) return { ...base, status: 'ended' }
  const period = await read<{ start: number; end: number; spend: bigint }>('getCurrentPeriod')
  return {
    ...base,
    status: 'active',
    periodStart: period.start,
    periodEnd: period.end,
    spent: period.spend,
    remaining: revoked ? 0n : permission.allowance - period.spend,
  }
}

export declare namespace checkBeforeCharge {
  type ReturnType = { ok: boolean; failures: { reason: FailureReason; message: string }[]; state: readSpendPermission.ReturnType }
}

/**
 * Everything that would make a charge revert, read at `pending`: revoked,
 * window, period allowance, the account's balance (its owner can move funds
 * out at any time), caller is the spender, pause and blacklists.
 */
export async function checkBeforeCharge(options: {
  client: Client
  permission: SpendPermission
  amount: bigint
  submitter: `0x${string}`
}): Promise<checkBeforeCharge.ReturnType> {
  const { client, permission, amount, submitter } = options
  const read = <result>(functionName: string, args: readonly unknown[] = []) =>
    readContract(client, { address: permission.token, abi: tokenAbi, functionName, args, blockTag: 'pending' } as never) as Promise<result>
  const [state, balance, paused, accountListed, spenderListed] = await Promise.all([
    readSpendPermission({ client, permission }),
    read<bigint>('balanceOf', [permission.account]),
    read<boolean>('paused'),
    read<boolean>('isBlacklisted', [permission.account]),
    read<boolean>('isBlacklisted', [permission.spender]),
  ])
  const failures: checkBeforeCharge.ReturnType['failures'] = []
  const fail = (reason: FailureReason, message: string) => failures.push({ reason, message })
  if (!isAddressEqual(submitter, permission.spender))
    fail('caller-not-spender', `Only the spender ${permission.spender} may charge, not ${submitter}.`)
  if (state.revoked) fail('revoked', 'The permission was revoked.')
  if (state.status === 'not-started')
    fail('not-yet-valid', `The permission starts at ${permission.start}; chain time is ${state.timestamp}.`)
  if (state.status === 'ended') fail('expired', `The permission ended at ${permission.end}; chain time is ${state.timestamp}.`)
  if (state.status === 'active' && !state.revoked && amount > state.remaining)
    fail(
      'over-allowance',
      `${formatAmount(amount)} is more than the ${formatAmount(state.remaining)} left in this period (ends ${state.periodEnd}).`,
    )
  if (balance < amount)
    fail('insufficient-balance', `The account holds ${formatAmount(balance)}, less than ${formatAmount(amount)}.`)
  if (paused) fail('paused', 'The token is paused.')
  if (accountListed) fail('blacklisted', `The account ${permission.account} is blacklisted by the token.`)
  if (spenderListed) fail('blacklisted', `The spender ${permission.spender} is blacklisted by the token.`)
  return { ok: failures.length === 0, failures, state }
}

/** Encodes `SpendPermissionManager.spend(permission, value, signature)`. */
export function encodeCharge(permission: SpendPermission, amount: bigint, signature: Hex): Hex {
  return encodeFunctionData({
    abi: spendPermissionManagerAbi,
    functionName: 'spend',
    args: [toSpendPermissionStruct(permission), amount, signature],
  })
}

export declare namespace chargeSpendPermission {
  type Options = submitCall.Options & {
    permission: SpendPermission
    /** The owner's signature; approves the permission on the first charge (ignored after). */
    signature: Hex
    /** A decimal string (`"4.00"`) or token units. */
    amount: string | bigint
    /** @default 6 */
    decimals?: number | undefined
    /** Run {@link checkBeforeCharge} first. @default true */
    check?: boolean | undefined
  }
}

/**
 * Charges `amount` from the account to the spender (the wallet's account):
 * the manager approves the permission with the owner's signature on first
 * use, checks the period allowance and has the account transfer the token.
 * Throws {@link CaptureCheckError} (nothing sent) or `TransactionRevertedError`.
 */
export async function chargeSpendPermission(options: chargeSpendPermission.Options): Promise<submitCall.ReturnType> {
  const { permission, signature, wallet } = options
  const amount = parseAmount(options.amount, options.decimals)
  const client = options.client ?? wallet
  if (options.check ?? true) {
    const submitter = wallet.account?.address ?? permission.spender
    const result = await checkBeforeCharge({ client, permission, amount, submitter })
    if (!result.ok) throw new CaptureCheckError({ failures: result.failures, action: 'charge' })
  }
  return submitCall(
    'spend-permission charge',
    { to: permission.domain.verifyingContract, data: encodeCharge(permission, amount, signature) },
    options,
    [signature],
  )
}

import {
  type Account,
  type Address,
  type Client,
  type Hash,
  type Hex,
  type TransactionReceipt,
  decodeErrorResult,
  parseSignature,
  size,
  zeroHash,
} from 'viem'
import {
  call,
  estimateGas,
  getTransactionReceipt,
  prepareTransactionRequest,
  sendRawTransaction,
  sendRawTransactionSync,
  sendTransaction,
} from 'viem/actions'
import { ReceiptTimeoutError, SignerNotSupportedError } from './errors.js'
import type { FailureReason } from './types.js'

/**
 * USDC's revert strings (FiatToken V2_2 and the libraries it links), and
 * those of devnet's checkout and spend-permission contracts, mapped to
 * reasons. A devnet token that disagrees with these has a bug.
 */
export const revertReasons = {
  'FiatTokenV2: authorization is expired': 'expired',
  'FiatTokenV2: authorization is not yet valid': 'not-yet-valid',
  'FiatTokenV2: authorization is used or canceled': 'used-or-canceled',
  'FiatTokenV2: invalid signature': 'invalid-signature',
  'FiatTokenV2: caller must be the payee': 'caller-not-payee',
  'ECRecover: invalid signature length': 'invalid-signature',
  "ECRecover: invalid signature 's' value": 'invalid-signature',
  "ECRecover: invalid signature 'v' value": 'invalid-signature',
  'ECRecover: invalid signature': 'invalid-signature',
  'Pausable: paused': 'paused',
  'Blacklistable: account is blacklisted': 'blacklisted',
  'ERC20: transfer amount exceeds balance': 'insufficient-balance',
  'ERC20: transfer amount exceeds allowance': 'insufficient-allowance',
  'FiatTokenV2: permit is expired': 'expired',
  'EIP2612: invalid signature': 'permit-unusable',
  'PermitCheckout: caller is not the merchant': 'caller-not-merchant',
  'PermitCheckout: caller is not the buyer or merchant': 'caller-not-party',
  'SmartAccount: caller is not the owner or the manager': 'caller-not-owner',
  'PermitCheckout: order already captured': 'already-captured',
  'PermitCheckout: order voided': 'voided',
  'PermitCheckout: order expired': 'expired',
  'PermitCheckout: amount exceeds cap': 'over-cap',
  'PermitCheckout: invalid order signature': 'invalid-signature',
  'SpendPermissionManager: caller is not the spender': 'caller-not-spender',
  'SpendPermissionManager: permission revoked': 'revoked',
  'SpendPermissionManager: exceeds period allowance': 'over-allowance',
  'SpendPermissionManager: before start': 'not-yet-valid',
  'SpendPermissionManager: after end': 'expired',
  'SpendPermissionManager: invalid signature': 'invalid-signature',
  'SpendPermissionManager: permission not approved': 'not-approved',
} as const satisfies Record<string, FailureReason>

/** Whether a receipt is a pre-confirmation (flashblock receipts carry a zero block hash). */
export function isPreconfirmed(receipt: { blockHash: Hash | null }): boolean {
  return receipt.blockHash === null || receipt.blockHash === zeroHash
}

/**
 * Finds USDC's revert string in an error chain (viem's decoded reason, the raw
 * `Error(string)` data or the node's `execution reverted: …` message).
 */
export function decodeRevert(error: unknown): { reason: FailureReason; revertMessage: string } | undefined {
  const texts: string[] = []
  const seen = new Set<unknown>()
  let current = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const e = current as Record<string, unknown>
    if (typeof e.reason === 'string') texts.push(e.reason)
    for (const key of ['data', 'raw'])
      if (typeof e[key] === 'string' && (e[key] as string).startsWith('0x08c379a0'))
        try {
          const decoded = decodeErrorResult({ data: e[key] as Hex })
          if (typeof decoded.args?.[0] === 'string') texts.push(decoded.args[0])
        } catch {}
    for (const key of ['details', 'shortMessage', 'message'])
      if (typeof e[key] === 'string') texts.push(e[key] as string)
    current = e.cause
  }
  // Longest first, so that "ECRecover: invalid signature length" wins over
  // its prefix "ECRecover: invalid signature".
  const known = Object.keys(revertReasons).sort((a, b) => b.length - a.length) as (keyof typeof revertReasons)[]
  for (const text of texts)
    for (const message of known) if (text.includes(message)) return { reason: revertReasons[message], revertMessage: message }
  return undefined
}

/** Splits a 65-byte signature into USDC's `(v, r, s)` arguments; v is 27 or 28. */
export function splitSignature(signature: Hex): { v: number; r: Hex; s: Hex } | undefined {
  if (size(signature) !== 65) return undefined
  try {
    const { r, s, v, yParity } = parseSignature(signature)
    return { v: v === undefined ? yParity + 27 : Number(v), r, s }
  } catch {
    return undefined
  }
}

/** Options shared by the functions that send a token transaction. */
export type SendOptions = {
  /** Skip `eth_estimateGas` at `pending` (and its revert check): the transaction is mined and reverts on chain. */
  gas?: bigint | undefined
  /** Try `eth_sendRawTransactionSync` (EIP-7966) for local accounts. @default true */
  sync?: boolean | undefined
  /** @default the client's pollingInterval */
  pollingInterval?: number | undefined
  /** Milliseconds to wait for a receipt. @default 60_000 */
  timeout?: number | undefined
}

const methodMissing = (error: unknown) => {
  const seen = new Set<unknown>()
  let current = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    if (code === -32601 || code === -32004) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** The wallet's account, or an error saying one is needed. */
export function accountOf(wallet: Client): Account {
  if (!wallet.account) throw new SignerNotSupportedError({ reason: 'the wallet client has no account' })
  return wallet.account
}

/**
 * Sends `data` to `to` from the wallet's account and returns the first
 * receipt: with a local account through `eth_sendRawTransactionSync` when the
 * node has it (one round trip to a pre-confirmed receipt), otherwise
 * `eth_sendRawTransaction`/`eth_sendTransaction` and receipt polling.
 */
export async function sendAndWait(
  wallet: Client,
  request: { to: Address; data: Hex },
  options: SendOptions = {},
): Promise<TransactionReceipt> {
  const account = accountOf(wallet)
  const base = { account, to: request.to, data: request.data, chain: wallet.chain ?? null } as const
  // Estimated against `pending`, not viem's default (the node's `latest`): the
  // checks read pre-confirmed state, and a transaction that depends on one
  // pre-confirmed a moment ago (a transfer into the payer) must not be
  // refused at estimate for a state the chain has already moved past.
  const gas = {
    gas: options.gas ?? (await estimateGas(wallet, { account, to: request.to, data: request.data, blockTag: 'pending' })),
  }
  if (account.type === 'local') {
    const prepared = await prepareTransactionRequest(wallet, { ...base, ...gas } as never)
    const serializedTransaction = await account.signTransaction(prepared as never)
    if (options.sync ?? true) {
      try {
        return (await sendRawTransactionSync(wallet, {
          serializedTransaction,
          throwOnReceiptRevert: false,
          ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
        })) as TransactionReceipt
      } catch (error) {
        if (!methodMissing(error)) throw error
      }
    }
    const hash = await sendRawTransaction(wallet, { serializedTransaction })
    return waitForReceipt(wallet, hash, { ...options, until: 'preconfirmed' })
  }
  const hash = await sendTransaction(wallet, { ...base, ...gas } as never)
  return waitForReceipt(wallet, hash, { ...options, until: 'preconfirmed' })
}

/**
 * Polls `eth_getTransactionReceipt` until a receipt exists (`preconfirmed`) or
 * until it carries a real block hash (`sealed`). The first poll is immediate.
 */
export async function waitForReceipt(
  client: Client,
  hash: Hash,
  options: SendOptions & { until: 'preconfirmed' | 'sealed' },
): Promise<TransactionReceipt> {
  const timeout = options.timeout ?? 60_000
  const interval = options.pollingInterval ?? client.pollingInterval
  const start = Date.now()
  for (;;) {
    const receipt = await getTransactionReceipt(client, { hash }).catch((error: unknown) => {
      if ((error as { name?: unknown }).name === 'TransactionReceiptNotFoundError') return undefined
      throw error
    })
    if (receipt && (options.until === 'preconfirmed' || !isPreconfirmed(receipt)))
      return receipt as TransactionReceipt
    if (Date.now() - start >= timeout) throw new ReceiptTimeoutError({ hash, waitFor: options.until, timeout })
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
}

/**
 * Replays a reverted transaction with `eth_call` to recover its revert string
 * (receipts carry none): at `pending` for a pre-confirmed receipt, at its
 * block otherwise.
 */
export async function replayRevert(
  client: Client,
  from: Address,
  request: { to: Address; data: Hex },
  receipt: TransactionReceipt,
) {
  try {
    await call(client, {
      account: from,
      to: request.to,
      data: request.data,
      ...(isPreconfirmed(receipt) ? { blockTag: 'pending' as const } : { blockNumber: receipt.blockNumber }),
    })
  } catch (error) {
    return decodeRevert(error)
  }
  return undefined
}

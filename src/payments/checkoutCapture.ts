import { type Address, type Client, type Hex, encodeFunctionData, isAddressEqual } from 'viem'
import { getBlock, getChainId, readContract } from 'viem/actions'
import { permitCheckoutAbi } from '../artifacts/permitCheckout.js'
import { tokenAbi } from './abi.js'
import { formatAmount, parseAmount } from './amount.js'
import { type CheckoutOrder, type CheckoutSignatures, toOrderStruct } from './checkoutOrder.js'
import { readCheckoutOrderState } from './checkoutVoid.js'
import { CaptureCheckError } from './errors.js'
import { submitCall } from './submit.js'
import type { FailureReason } from './types.js'

const permitReadAbi = [
  {
    type: 'function',
    name: 'nonces',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
    ],
    outputs: [{ type: 'uint256' }],
  },
] as const

export declare namespace checkBeforeCheckoutCapture {
  type Options = {
    client: Client
    order: CheckoutOrder
    /** The final amount, in token units. */
    amount: bigint
    /** Who will send the capture (must be the merchant). */
    submitter: Address
  }
  type ReturnType = {
    ok: boolean
    failures: { reason: FailureReason; message: string }[]
    /** Reads the token did not answer (a token without pause or blacklist). */
    skipped: string[]
    /** The pending block's timestamp the deadline was checked against. */
    timestamp: bigint
  }
}

/**
 * Everything that would make the capture revert, read at `pending` and
 * reported all at once: order state, amount ≤ cap, deadline, caller is the
 * merchant, the buyer still holds the cap (the contract pulls it through),
 * the permit is usable (its nonce is the buyer's next one, or it was
 * submitted already and the allowance stands), pause and blacklists.
 *
 * - JSON-RPC methods: `eth_call` (×8, at `pending`), `eth_getBlockByNumber`, `eth_chainId`
 */
export async function checkBeforeCheckoutCapture(
  options: checkBeforeCheckoutCapture.Options,
): Promise<checkBeforeCheckoutCapture.ReturnType> {
  const { client, order, amount, submitter } = options
  const token = order.tokenDomain.verifyingContract
  const checkout = order.domain.verifyingContract
  const read = <result>(abi: readonly unknown[], functionName: string, args: readonly unknown[] = []) =>
    readContract(client, { address: token, abi, functionName, args, blockTag: 'pending' } as never) as Promise<result>
  // Pause and blacklist are USDC's; a plain EIP-2612 token has neither, so those reads may fail.
  const optional = <result>(promise: Promise<result>, what: string) =>
    promise.catch(() => {
      skipped.push(what)
      return undefined
    })
  const skipped: string[] = []
  const [state, balance, nonce, allowance, paused, buyerListed, merchantListed, checkoutListed, block, chainId] =
    await Promise.all([
      readCheckoutOrderState({ client, order }),
      read<bigint>(tokenAbi, 'balanceOf', [order.buyer]),
      read<bigint>(permitReadAbi, 'nonces', [order.buyer]),
      read<bigint>(permitReadAbi, 'allowance', [order.buyer, checkout]),
      optional(read<boolean>(tokenAbi, 'paused'), 'paused'),
      optional(read<boolean>(tokenAbi, 'isBlacklisted', [order.buyer]), 'isBlacklisted(buyer)'),
      optional(read<boolean>(tokenAbi, 'isBlacklisted', [order.merchant]), 'isBlacklisted(merchant)'),
      optional(read<boolean>(tokenAbi, 'isBlacklisted', [checkout]), 'isBlacklisted(checkout)'),
      getBlock(client, { blockTag: 'pending' }),
      getChainId(client),
    ])
  const failures: checkBeforeCheckoutCapture.ReturnType['failures'] = []
  const fail = (reason: FailureReason, message: string) => failures.push({ reason, message })
  if (chainId !== order.domain.chainId)
    fail('chain-mismatch', `The order is for chain ${order.domain.chainId}, the client is on chain ${chainId}.`)
  if (state === 'captured') fail('already-captured', 'The order was captured already.')
  if (state === 'voided') fail('voided', 'The order was voided.')
  if (!isAddressEqual(submitter, order.merchant))
    fail('caller-not-merchant', `Only the merchant ${order.merchant} may capture, not ${submitter}.`)
  if (amount > order.cap)
    fail('over-cap', `${formatAmount(amount)} is more than the ${formatAmount(order.cap)} cap the buyer signed.`)
  if (block.timestamp > order.deadline)
    fail('expired', `The order's deadline ${order.deadline} has passed (pending block time ${block.timestamp}).`)
  if (balance < order.cap)
    fail(
      'insufficient-balance',
      `The buyer holds ${formatAmount(balance)}; the capture moves the ${formatAmount(order.cap)} cap through the checkout and returns the rest.`,
    )
  // Only an open order still needs its permit (a captured one consumed it).
  if (state === 'open' && nonce !== order.permitNonce && allowance < order.cap)
    fail(
      'permit-unusable',
      nonce > order.permitNonce
        ? `The permit's nonce ${order.permitNonce} is used (the buyer's next is ${nonce}) and the allowance is ${formatAmount(allowance)}.`
        : `The permit's nonce ${order.permitNonce} is ahead of the buyer's next (${nonce}): an earlier permit must be used first.`,
    )
  if (paused) fail('paused', 'The token is paused.')
  for (const [who, address, listed] of [
    ['buyer', order.buyer, buyerListed],
    ['merchant', order.merchant, merchantListed],
    ['checkout contract', checkout, checkoutListed],
  ] as const)
    if (listed) fail('blacklisted', `The ${who} ${address} is blacklisted by the token.`)
  return { ok: failures.length === 0, failures, skipped, timestamp: block.timestamp }
}

/** Encodes `PermitCheckout.capture(order, orderSignature, permitSignature, amount)`. */
export function encodeCheckoutCapture(order: CheckoutOrder, signatures: CheckoutSignatures, amount: bigint): Hex {
  return encodeFunctionData({
    abi: permitCheckoutAbi,
    functionName: 'capture',
    args: [toOrderStruct(order), signatures.orderSignature, signatures.permitSignature, amount],
  })
}

export declare namespace captureCheckoutOrder {
  type Options = submitCall.Options & {
    order: CheckoutOrder
    signatures: CheckoutSignatures
    /** The final amount: a decimal string (`"62.37"`) or token units; at most the cap. */
    amount: string | bigint
    /** @default 6 */
    decimals?: number | undefined
    /** Run {@link checkBeforeCheckoutCapture} first. @default true */
    check?: boolean | undefined
  }
}

/**
 * Captures the final amount: the merchant's wallet sends
 * `PermitCheckout.capture`, which submits the permit (unless someone did),
 * pulls the cap, pays `amount` to the merchant named in the order and
 * returns the rest, leaving the checkout no allowance. Throws
 * {@link CaptureCheckError} (nothing sent) or `TransactionRevertedError`.
 */
export async function captureCheckoutOrder(options: captureCheckoutOrder.Options): Promise<submitCall.ReturnType> {
  const { order, signatures, wallet } = options
  // Zero is refused (InvalidAmountError): to close an order without payment, void it.
  const amount = parseAmount(options.amount, options.decimals)
  const client = options.client ?? wallet
  if (options.check ?? true) {
    const submitter = wallet.account?.address ?? order.merchant
    const result = await checkBeforeCheckoutCapture({ client, order, amount, submitter })
    if (!result.ok) throw new CaptureCheckError({ failures: result.failures })
  }
  return submitCall(
    'checkout capture',
    { to: order.domain.verifyingContract, data: encodeCheckoutCapture(order, signatures, amount) },
    options,
    [signatures.permitSignature, signatures.orderSignature],
  )
}

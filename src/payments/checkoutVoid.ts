import { type Client, encodeFunctionData } from 'viem'
import { readContract } from 'viem/actions'
import { permitCheckoutAbi } from '../artifacts/permitCheckout.js'
import type { CheckoutOrder } from './checkoutOrder.js'
import { submitCall } from './submit.js'

/** An order's state in the checkout contract. */
export type CheckoutOrderState = 'open' | 'captured' | 'voided'

const states = ['open', 'captured', 'voided'] as const

/**
 * Reads the order's state from the checkout contract (`open` also means
 * "never seen"), at `pending` unless a block tag is given.
 *
 * - JSON-RPC methods: `eth_call`
 */
export async function readCheckoutOrderState(options: {
  client: Client
  order: Pick<CheckoutOrder, 'domain' | 'merchant' | 'buyer' | 'orderId'>
  blockTag?: 'latest' | 'pending' | undefined
}): Promise<CheckoutOrderState> {
  const { client, order } = options
  const state = await readContract(client, {
    address: order.domain.verifyingContract,
    abi: permitCheckoutAbi,
    functionName: 'orderState',
    args: [order.merchant, order.buyer, order.orderId],
    blockTag: options.blockTag ?? 'pending',
  })
  return states[state] ?? 'open'
}

export declare namespace voidCheckoutOrder {
  type Options = submitCall.Options & { order: Pick<CheckoutOrder, 'domain' | 'merchant' | 'buyer' | 'orderId'> }
}

/**
 * Voids an open order on chain; the wallet's account must be its buyer or
 * its merchant. From then on the checkout never captures it. The permit
 * signature itself stays valid on the token until the deadline (EIP-2612 has
 * no cancel): anyone holding it can still set the allowance, which the
 * checkout will not spend for this order.
 *
 * - JSON-RPC methods: those of sending a transaction
 */
export async function voidCheckoutOrder(options: voidCheckoutOrder.Options): Promise<submitCall.ReturnType> {
  const { order } = options
  return submitCall(
    'checkout void',
    {
      to: order.domain.verifyingContract,
      data: encodeFunctionData({
        abi: permitCheckoutAbi,
        functionName: 'void',
        args: [order.merchant, order.buyer, order.orderId],
      }),
    },
    options,
  )
}

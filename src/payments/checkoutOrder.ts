import {
  type Address,
  type Client,
  type Hex,
  getAddress,
  isHex,
  keccak256,
  stringToHex,
  verifyTypedData as verifyTypedDataLocally,
} from 'viem'
import { getBlock, getCode, readContract, verifyTypedData } from 'viem/actions'
import { predeployAddresses } from '../config/predeploys.js'
import { parseAmount } from './amount.js'
import { type Signer, signTypedDataWith } from './authorize.js'
import { readTokenDomain } from './domain.js'
import { InvalidValidityWindowError, SignatureVerificationError } from './errors.js'
import type { TokenDomain } from './types.js'

/** EIP-712 types of the two things a permit-checkout buyer signs. */
export const checkoutTypes = {
  Permit: {
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
    ],
  },
  Order: {
    Order: [
      { name: 'token', type: 'address' },
      { name: 'buyer', type: 'address' },
      { name: 'merchant', type: 'address' },
      { name: 'cap', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
      { name: 'orderId', type: 'bytes32' },
    ],
  },
} as const

/**
 * A permit-checkout order: what the buyer signs (an EIP-2612 permit of `cap`
 * to the checkout contract, and the order naming the merchant), with the two
 * EIP-712 domains. Nothing in it is secret; the signatures are.
 */
export type CheckoutOrder = {
  /** The checkout contract's domain (`PermitCheckout`, version 1). */
  domain: TokenDomain
  /** The token's domain; its `verifyingContract` is the token. */
  tokenDomain: TokenDomain
  buyer: Address
  merchant: Address
  /** The most the merchant may capture, in token units. */
  cap: bigint
  /** Unix seconds: last second a capture is accepted; also the permit's deadline. */
  deadline: bigint
  /** keccak256 of the merchant's order reference, or a bytes32 given as is. */
  orderId: Hex
  /** The buyer's EIP-2612 nonce the permit is signed with. */
  permitNonce: bigint
}

/** The buyer's two signatures; bearer credentials until the deadline, never log them. */
export type CheckoutSignatures = { permitSignature: Hex; orderSignature: Hex }

const noncesAbi = [
  {
    type: 'function',
    name: 'nonces',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
] as const

/** A merchant's order reference as bytes32: a 32-byte hex as is, anything else hashed. */
export function toOrderId(reference: string): Hex {
  return isHex(reference) && reference.length === 66 ? (reference.toLowerCase() as Hex) : keccak256(stringToHex(reference))
}

export declare namespace createCheckoutOrder {
  type Options = {
    /** Reads the token domain, the buyer's permit nonce and the chain time (all at `pending`). */
    client: Client
    token: Address
    buyer: Address
    merchant: Address
    /** Decimal string (`"80.00"`) or integer units. */
    cap: string | bigint
    /** The merchant's order reference (`"A-1001"`) or a bytes32. */
    orderId: string
    /** Absolute Unix seconds. @default pending block time + `validFor` */
    deadline?: bigint | undefined
    /** Seconds from the pending block's time when no deadline is given. @default 3600 */
    validFor?: number | undefined
    /** The permit nonce, when earlier permits of the buyer are still outstanding. @default nonces(buyer) */
    permitNonce?: bigint | undefined
    /** @default the devnet predeploy {@link predeployAddresses.permitCheckout} */
    checkout?: Address | undefined
    /** @default 6 */
    decimals?: number | undefined
  }
}

/**
 * Builds an unsigned permit-checkout order. EIP-2612 nonces are sequential:
 * a permit signed with nonce n is usable only once the buyer's n-th permit is
 * (or is not yet) consumed, so a buyer with two open orders at once signs the
 * second with `permitNonce: n + 1` and it can be captured only after the first.
 *
 * - JSON-RPC methods: `eth_call` (×3), `eth_chainId`, `eth_getBlockByNumber` (pending)
 */
export async function createCheckoutOrder(options: createCheckoutOrder.Options): Promise<CheckoutOrder> {
  const { client } = options
  const checkout = getAddress(options.checkout ?? predeployAddresses.permitCheckout)
  const token = getAddress(options.token)
  const buyer = getAddress(options.buyer)
  const [tokenDomain, nonce, block] = await Promise.all([
    readTokenDomain(client, token),
    options.permitNonce ??
      readContract(client, { address: token, abi: noncesAbi, functionName: 'nonces', args: [buyer], blockTag: 'pending' }),
    options.deadline === undefined ? getBlock(client, { blockTag: 'pending' }) : undefined,
  ])
  const deadline = options.deadline ?? block!.timestamp + BigInt(options.validFor ?? 3600)
  if (block && deadline <= block.timestamp)
    throw new InvalidValidityWindowError({ validAfter: block.timestamp, validBefore: deadline })
  return {
    domain: { name: 'PermitCheckout', version: '1', chainId: tokenDomain.chainId, verifyingContract: checkout },
    tokenDomain,
    buyer,
    merchant: getAddress(options.merchant),
    cap: parseAmount(options.cap, options.decimals),
    deadline,
    orderId: toOrderId(options.orderId),
    permitNonce: nonce,
  }
}

/** The EIP-2612 permit the buyer signs: `cap` to the checkout contract until the deadline. */
export function toPermitTypedData(order: CheckoutOrder) {
  return {
    domain: order.tokenDomain,
    types: checkoutTypes.Permit,
    primaryType: 'Permit' as const,
    message: {
      owner: order.buyer,
      spender: order.domain.verifyingContract,
      value: order.cap,
      nonce: order.permitNonce,
      deadline: order.deadline,
    },
  }
}

/** The order struct as the contract takes it. */
export function toOrderStruct(order: CheckoutOrder) {
  return {
    token: order.tokenDomain.verifyingContract,
    buyer: order.buyer,
    merchant: order.merchant,
    cap: order.cap,
    deadline: order.deadline,
    orderId: order.orderId,
  }
}

/** The EIP-712 order the buyer signs: binds merchant, cap, deadline and order id. */
export function toOrderTypedData(order: CheckoutOrder) {
  return { domain: order.domain, types: checkoutTypes.Order, primaryType: 'Order' as const, message: toOrderStruct(order) }
}

/** Checks one typed-data signature for `address`: ECDSA locally, then ERC-1271 through `client` for a contract. */
export async function verifySignatureOf(
  address: Address,
  typedData: { domain: object; types: object; primaryType: string; message: object },
  signature: Hex,
  client?: Client | undefined,
): Promise<boolean> {
  const local = await verifyTypedDataLocally({ ...typedData, address, signature } as never).catch(() => false)
  if (local || !client) return local
  const code = await getCode(client, { address }).catch(() => undefined)
  if (!code || code === '0x') return false
  return verifyTypedData(client, { ...typedData, address, signature } as never).catch(() => false)
}

export declare namespace signCheckoutOrder {
  type Options = {
    order: CheckoutOrder
    /** The buyer's wallet: a viem Account or a WalletClient. */
    signer: Signer
    /** For JSON-RPC accounts and ERC-1271 buyers. @default the signer when it is a client */
    client?: Client | undefined
  }
}

/**
 * Has the buyer sign the permit and the order (two `eth_signTypedData_v4`
 * prompts in a browser wallet), and verifies both before returning them.
 */
export async function signCheckoutOrder(options: signCheckoutOrder.Options): Promise<CheckoutSignatures> {
  const { order, signer } = options
  const client =
    options.client ?? ('request' in signer && typeof signer.request === 'function' ? (signer as Client) : undefined)
  const permit = toPermitTypedData(order)
  const typed = toOrderTypedData(order)
  const permitSignature = await signTypedDataWith(signer, client, order.buyer, permit as never)
  const orderSignature = await signTypedDataWith(signer, client, order.buyer, typed as never)
  for (const [primaryType, data, signature] of [
    ['Permit', permit, permitSignature],
    ['Order', typed, orderSignature],
  ] as const)
    if (!(await verifySignatureOf(order.buyer, data as never, signature, client)))
      throw new SignatureVerificationError({ from: order.buyer, primaryType })
  return { permitSignature, orderSignature }
}

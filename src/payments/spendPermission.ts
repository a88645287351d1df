import { type Address, type Client, type Hex, bytesToHex, getAddress } from 'viem'
import { getBlock, getChainId } from 'viem/actions'
import { predeployAddresses } from '../config/predeploys.js'
import { parseAmount } from './amount.js'
import { type Signer, signTypedDataWith } from './authorize.js'
import { verifySignatureOf } from './checkoutOrder.js'
import { InvalidValidityWindowError, SignatureVerificationError } from './errors.js'
import type { TokenDomain } from './types.js'

/** EIP-712 type of a spend permission (Coinbase's SpendPermission without `extraData`). */
export const spendPermissionTypes = {
  SpendPermission: [
    { name: 'account', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'allowance', type: 'uint160' },
    { name: 'period', type: 'uint48' },
    { name: 'start', type: 'uint48' },
    { name: 'end', type: 'uint48' },
    { name: 'salt', type: 'uint256' },
  ],
} as const

/**
 * A spend permission: `spender` may move up to `allowance` of `token` from
 * the smart `account` in every `period` seconds from `start` until `end`
 * (chain time), plus the manager's EIP-712 domain.
 */
export type SpendPermission = {
  /** The manager's domain (`SpendPermissionManager`, version 1). */
  domain: TokenDomain
  account: Address
  spender: Address
  token: Address
  /** Token units per period. */
  allowance: bigint
  /** Seconds. */
  period: number
  /** Unix seconds; the first period starts here. */
  start: number
  /** Unix seconds; no charge at or after it. */
  end: number
  salt: bigint
}

export declare namespace createSpendPermission {
  type Options = {
    /** Reads the chain id and, without `start`, the pending block's time. */
    client: Client
    /** The smart account (see getSmartAccountAddress). */
    account: Address
    spender: Address
    token: Address
    /** Per period: a decimal string (`"10.00"`) or token units. */
    allowance: string | bigint
    /** Period length in seconds, e.g. 86_400 for daily. */
    period: number
    /** @default the latest block's time */
    start?: number | undefined
    /** @default start + 30 periods */
    end?: number | undefined
    /** Tells apart permissions with identical terms. @default 16 random bytes */
    salt?: bigint | undefined
    /** @default the devnet predeploy */
    manager?: Address | undefined
    /** @default 6 */
    decimals?: number | undefined
  }
}

/**
 * Builds an unsigned spend permission.
 *
 * - JSON-RPC methods: `eth_chainId`, `eth_getBlockByNumber` (latest, without `start`)
 */
export async function createSpendPermission(options: createSpendPermission.Options): Promise<SpendPermission> {
  const { client } = options
  const [chainId, block] = await Promise.all([
    getChainId(client),
    // The latest block's time, not pending's: a call or estimate made at
    // `latest` (most tools' default) would otherwise see a permission whose
    // start is still a second ahead.
    options.start === undefined ? getBlock(client, { blockTag: 'latest' }) : undefined,
  ])
  const start = options.start ?? Number(block!.timestamp)
  const end = options.end ?? start + 30 * options.period
  if (!(options.period > 0) || end <= start)
    throw new InvalidValidityWindowError({ validAfter: BigInt(start), validBefore: BigInt(end) })
  return {
    domain: {
      name: 'SpendPermissionManager',
      version: '1',
      chainId,
      verifyingContract: getAddress(options.manager ?? predeployAddresses.spendPermissionManager),
    },
    account: getAddress(options.account),
    spender: getAddress(options.spender),
    token: getAddress(options.token),
    allowance: parseAmount(options.allowance, options.decimals),
    period: options.period,
    start,
    end,
    salt: options.salt ?? BigInt(bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(16)))),
  }
}

/** The permission as the manager contract takes it. */
export function toSpendPermissionStruct(permission: SpendPermission) {
  const { account, spender, token, allowance, period, start, end, salt } = permission
  return { account, spender, token, allowance, period, start, end, salt }
}

/** The EIP-712 typed data the account's owner signs. */
export function toSpendPermissionTypedData(permission: SpendPermission) {
  return {
    domain: permission.domain,
    types: spendPermissionTypes,
    primaryType: 'SpendPermission' as const,
    message: toSpendPermissionStruct(permission),
  }
}

export declare namespace signSpendPermission {
  type Options = {
    permission: SpendPermission
    /** The account owner's wallet (a viem Account or WalletClient). */
    signer: Signer
    /** Verifies through the account's ERC-1271; also reaches JSON-RPC accounts. @default the signer when it is a client */
    client?: Client | undefined
    /** The owner's address, for a WalletClient without an account. */
    owner?: Address | undefined
  }
}

/**
 * Has the account's owner sign the permission, then checks the signature
 * the way the manager will: through the account's ERC-1271
 * `isValidSignature` when a client is at hand (the account must exist).
 */
export async function signSpendPermission(options: signSpendPermission.Options): Promise<Hex> {
  const { permission, signer } = options
  const client =
    options.client ?? ('request' in signer && typeof signer.request === 'function' ? (signer as Client) : undefined)
  const owner =
    options.owner ??
    ('address' in signer ? (signer as { address: Address }).address : (signer as Client).account?.address)
  if (!owner) throw new SignatureVerificationError({ from: permission.account, primaryType: 'SpendPermission' })
  const typedData = toSpendPermissionTypedData(permission)
  const signature = await signTypedDataWith(signer, client, owner, typedData as never)
  if (client && !(await verifySignatureOf(permission.account, typedData, signature, client)))
    throw new SignatureVerificationError({ from: permission.account, primaryType: 'SpendPermission' })
  return signature
}

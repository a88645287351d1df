import {
  type Account,
  type Address,
  type Client,
  type Hex,
  bytesToHex,
  getAddress,
  isHex,
  verifyTypedData as verifyTypedDataLocally,
} from 'viem'
import { getCode, signTypedData, verifyTypedData } from 'viem/actions'
import { authorizationTypes } from './abi.js'
import { parseAmount } from './amount.js'
import {
  InvalidNonceError,
  InvalidValidityWindowError,
  SignatureVerificationError,
  SignerNotSupportedError,
} from './errors.js'
import type {
  Authorization,
  AuthorizationPrimaryType,
  Clock,
  NonceSource,
  TokenDomain,
} from './types.js'

/** 32 bytes from the platform CSPRNG (`crypto.getRandomValues`). */
export const randomNonce: NonceSource = () =>
  bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)))

/** Default start of the window, before `now`: tolerates a payer clock that runs a little fast. */
export const defaultValidAfterSkew = 60
/** Default lifetime of an authorization, in seconds (15 minutes). */
export const defaultValidFor = 15 * 60

export declare namespace createAuthorization {
  type Options = {
    /** From {@link readTokenDomain}. */
    domain: TokenDomain
    /** The payer, who signs. */
    from: Address
    /** The merchant, who receives (and, for `ReceiveWithAuthorization`, must submit). */
    to: Address
    /** Decimal string (`"12.50"`) or integer units (`12_500_000n`). */
    amount: string | bigint
    /** @default 'ReceiveWithAuthorization': only `to` can capture, so nobody can front-run it. */
    primaryType?: AuthorizationPrimaryType | undefined
    /** @default 6 */
    decimals?: number | undefined
    /** The current time in ms (a number or a clock), e.g. chain time. @default Date.now */
    now?: Clock | number | undefined
    /** Absolute Unix seconds. @default now − 60 s */
    validAfter?: bigint | undefined
    /** Absolute Unix seconds. @default now + 15 min */
    validBefore?: bigint | undefined
    /** Lifetime in seconds when `validBefore` is not given. @default 900 */
    validFor?: number | undefined
    /** @default {@link randomNonce} */
    nonceSource?: NonceSource | undefined
  }
}

/**
 * Builds an unsigned EIP-3009 authorization. Nothing touches the chain: the
 * buyer's signature over this object is all the merchant gets at checkout.
 *
 * @example
 * const authorization = createAuthorization({ domain, from: buyer, to: shop, amount: '12.50' })
 */
export function createAuthorization(options: createAuthorization.Options): Authorization {
  const ms = typeof options.now === 'number' ? options.now : (options.now ?? Date.now)()
  const now = BigInt(Math.floor(ms / 1000))
  const validAfter = options.validAfter ?? now - BigInt(defaultValidAfterSkew)
  const validBefore = options.validBefore ?? now + BigInt(options.validFor ?? defaultValidFor)
  if (validAfter < 0n || validBefore <= validAfter + 1n)
    // The token needs a timestamp strictly between the two bounds.
    throw new InvalidValidityWindowError({ validAfter, validBefore })
  const nonce = (options.nonceSource ?? randomNonce)()
  if (typeof nonce !== 'string' || !isHex(nonce, { strict: true }) || nonce.length !== 66)
    throw new InvalidNonceError({ nonce })
  return {
    primaryType: options.primaryType ?? 'ReceiveWithAuthorization',
    domain: { ...options.domain, verifyingContract: getAddress(options.domain.verifyingContract) },
    from: getAddress(options.from),
    to: getAddress(options.to),
    value: parseAmount(options.amount, options.decimals),
    validAfter,
    validBefore,
    nonce: nonce.toLowerCase() as Hex,
  }
}

/** The capture function that accepts an authorization's type hash. */
export function captureMethodOf(primaryType: AuthorizationPrimaryType) {
  return primaryType === 'ReceiveWithAuthorization'
    ? ('receiveWithAuthorization' as const)
    : ('transferWithAuthorization' as const)
}

/** The EIP-712 typed data the payer signs (viem `signTypedData` parameters). */
export function toTypedData(authorization: Authorization) {
  const { primaryType, domain, from, to, value, validAfter, validBefore, nonce } = authorization
  return {
    domain,
    types: authorizationTypes[primaryType],
    primaryType,
    message: { from, to, value, validAfter, validBefore, nonce },
  } as {
    domain: TokenDomain
    types: (typeof authorizationTypes)['ReceiveWithAuthorization']
    primaryType: 'ReceiveWithAuthorization'
    message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }
  }
}

/** A viem Account (local, smart or JSON-RPC) or a WalletClient. */
export type Signer = Account | Client

/** Signs typed data with whichever kind of signer was given. */
export async function signTypedDataWith(
  signer: Signer,
  client: Client | undefined,
  address: Address,
  typedData: Parameters<typeof signTypedData>[1],
): Promise<Hex> {
  if ('request' in signer && typeof signer.request === 'function') {
    const walletClient = signer as Client
    // A WalletClient without a hoisted account signs for the payer's address,
    // which the node does with eth_signTypedData_v4 (dev accounts on devnet).
    const account = walletClient.account ?? address
    return signTypedData(walletClient, { ...typedData, account } as never)
  }
  const account = signer as Account
  if (account.type === 'json-rpc') {
    if (!client)
      throw new SignerNotSupportedError({
        reason: 'a JSON-RPC account needs a `client` to reach eth_signTypedData_v4',
      })
    return signTypedData(client, { ...typedData, account } as never)
  }
  return account.signTypedData(typedData as never)
}

/**
 * Checks a signature against the payer: locally first (EOA recovery), then,
 * when a `client` is given and the payer is a contract, with the client's
 * `verifyTypedData` action (ERC-1271).
 */
export async function verifyAuthorizationSignature(options: {
  authorization: Authorization
  signature: Hex
  client?: Client | undefined
}): Promise<boolean> {
  const { authorization, signature, client } = options
  const typedData = toTypedData(authorization)
  const local = await verifyTypedDataLocally({
    ...typedData,
    address: authorization.from,
    signature,
  }).catch(() => false)
  if (local || !client) return local
  // Only a contract can accept a signature that does not recover to it.
  const code = await getCode(client, { address: authorization.from }).catch(() => undefined)
  if (!code || code === '0x') return false
  return verifyTypedData(client, { ...typedData, address: authorization.from, signature }).catch(
    () => false,
  )
}

export declare namespace signAuthorization {
  type Options = {
    authorization: Authorization
    /** The payer's wallet: a viem Account or a WalletClient. */
    signer: Signer
    /**
     * A client for JSON-RPC accounts and for ERC-1271 verification of
     * contract-wallet payers. @default the signer when it is a client
     */
    client?: Client | undefined
  }
}

/**
 * Asks the payer's wallet to sign the authorization, then verifies the
 * signature before returning it, so a wallet that signed something else (a
 * different primary type, chain or key) is caught at checkout rather than at
 * capture.
 *
 * - JSON-RPC methods: `eth_signTypedData_v4` for JSON-RPC accounts; `eth_call`
 *   only for ERC-1271 payers.
 */
export async function signAuthorization(options: signAuthorization.Options): Promise<Hex> {
  const { authorization, signer } = options
  const client =
    options.client ?? ('request' in signer && typeof signer.request === 'function' ? (signer as Client) : undefined)
  const signature = await signTypedDataWith(
    signer,
    client,
    authorization.from,
    toTypedData(authorization) as never,
  )
  const valid = await verifyAuthorizationSignature({ authorization, signature, client })
  if (!valid)
    throw new SignatureVerificationError({
      from: authorization.from,
      primaryType: authorization.primaryType,
    })
  return signature
}

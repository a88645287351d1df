import { type Address, type Client, type Hex, isAddressEqual } from 'viem'
import { getBlock, getChainId, readContract } from 'viem/actions'
import { tokenAbi } from './abi.js'
import { formatAmount } from './amount.js'
import { captureMethodOf, verifyAuthorizationSignature } from './authorize.js'
import type { Authorization, CaptureMethod, FailureReason } from './types.js'

export declare namespace checkBeforeCapture {
  type Options = {
    /** Any client that reads the chain. */
    client: Client
    authorization: Authorization
    /** When given, also verified against the payer (locally, then ERC-1271). */
    signature?: Hex | undefined
    /** The account that will send the capture transaction. */
    submitter: Address
    /** @default the function that matches the authorization's primary type */
    method?: CaptureMethod | undefined
  }
  type Failure = { reason: FailureReason; message: string }
  type ReturnType = {
    ok: boolean
    /** Every failing reason, not just the first. */
    failures: Failure[]
    /** Reads the token did not answer (a token without pause or blacklist). */
    skipped: string[]
    method: CaptureMethod
    /** The pending block's timestamp the window was checked against. */
    timestamp: bigint
  }
}

/**
 * Checks, against the pending state, everything that would make the capture
 * revert, and returns every failing reason so the merchant sees the whole
 * picture before any gas is spent: nonce unused (`authorizationState`),
 * balance, validity window (pending block's timestamp, strict on both ends as
 * the token is), `paused()`, `isBlacklisted` for both parties, submitter is
 * the payee (receive), primary type matches the capture function, chain id,
 * and the signature when given.
 *
 * A passing check is not a guarantee: the payer can still move the funds (or
 * the token be paused) before the capture is included.
 *
 * - JSON-RPC methods: `eth_call` (×5, at `pending`), `eth_getBlockByNumber`, `eth_chainId`
 */
export async function checkBeforeCapture(
  options: checkBeforeCapture.Options,
): Promise<checkBeforeCapture.ReturnType> {
  const { client, authorization, signature, submitter } = options
  const { domain, from, to, value, validAfter, validBefore, nonce, primaryType } = authorization
  const expected = captureMethodOf(primaryType)
  const method = options.method ?? expected
  const token = domain.verifyingContract
  const read = <result>(functionName: string, args: readonly unknown[] = []) =>
    readContract(client, {
      address: token,
      abi: tokenAbi,
      functionName,
      args,
      blockTag: 'pending',
    } as never) as Promise<result>

  const [used, balance, paused, fromBlacklisted, toBlacklisted, block, chainId, signatureValid] =
    await Promise.allSettled([
      read<boolean>('authorizationState', [from, nonce]),
      read<bigint>('balanceOf', [from]),
      read<boolean>('paused'),
      read<boolean>('isBlacklisted', [from]),
      read<boolean>('isBlacklisted', [to]),
      getBlock(client, { blockTag: 'pending' }),
      getChainId(client),
      signature === undefined
        ? Promise.resolve(true)
        : verifyAuthorizationSignature({ authorization, signature, client }),
    ])

  const failures: checkBeforeCapture.Failure[] = []
  const skipped: string[] = []
  const fail = (reason: FailureReason, message: string) => failures.push({ reason, message })

  if (chainId.status === 'fulfilled' && chainId.value !== domain.chainId)
    fail(
      'chain-mismatch',
      `The authorization is for chain ${domain.chainId} but the client is on chain ${chainId.value}.`,
    )
  if (method !== expected)
    fail(
      'primary-type-mismatch',
      `The payer signed ${primaryType}, which only ${expected} accepts; ${method} would revert with "FiatTokenV2: invalid signature". Capture with ${expected}, or have the payer sign ${method === 'receiveWithAuthorization' ? 'ReceiveWithAuthorization' : 'TransferWithAuthorization'}.`,
    )
  if (method === 'receiveWithAuthorization' && !isAddressEqual(submitter, to))
    fail(
      'caller-not-payee',
      `receiveWithAuthorization must be sent by the payee ${to}, not ${submitter}.`,
    )
  if (signatureValid.status === 'fulfilled' && !signatureValid.value)
    fail('invalid-signature', `The signature does not verify for the payer ${from} over this ${primaryType}.`)

  if (used.status === 'rejected')
    fail('unknown', 'Could not read authorizationState: is this an EIP-3009 token?')
  else if (used.value)
    fail('used-or-canceled', `The payer's nonce ${nonce} is already used or canceled.`)

  if (balance.status === 'rejected') fail('unknown', 'Could not read the payer balance.')
  else if (balance.value < value)
    fail(
      'insufficient-balance',
      `The payer holds ${formatAmount(balance.value)}, less than the ${formatAmount(value)} authorized.`,
    )

  let timestamp = 0n
  if (block.status === 'rejected') fail('unknown', 'Could not read the pending block.')
  else {
    timestamp = block.value.timestamp
    if (timestamp <= validAfter)
      fail('not-yet-valid', `The authorization is valid after ${validAfter}; the pending block's time is ${timestamp}.`)
    if (timestamp >= validBefore)
      fail('expired', `The authorization expired at ${validBefore}; the pending block's time is ${timestamp}.`)
  }

  if (paused.status === 'rejected') skipped.push('paused')
  else if (paused.value) fail('paused', 'The token is paused.')
  for (const [who, address, result] of [
    ['payer', from, fromBlacklisted],
    ['payee', to, toBlacklisted],
  ] as const) {
    if (result.status === 'rejected') skipped.push(`isBlacklisted(${who})`)
    else if (result.value) fail('blacklisted', `The ${who} ${address} is blacklisted by the token.`)
  }

  return { ok: failures.length === 0, failures, skipped, method, timestamp }
}

import type { Address, EIP1193RequestFn, Hex } from 'viem'
import type { Authorization, TokenDomain } from '../payments/types.js'
import { ArgError, address } from '../rpc/codecs.js'
import { type MethodDef, defineMethod } from '../rpc/defineMethod.js'
import { q } from '../rpc/format.js'

/** The fields an authorization carries, as pasted: numbers as decimal or hex strings (or JSON numbers); the domain may be left out. */
type Pasted = Omit<Authorization, 'domain'> & { domain: TokenDomain | undefined; signature: Hex }

const integer = (name: string, value: unknown): bigint => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(value)) return BigInt(value)
  throw new ArgError(`${name}: expected a non-negative integer (decimal or 0x hex), got ${JSON.stringify(value)}`)
}

const hexOf = (name: string, value: unknown, bytes?: number): Hex => {
  const pattern = bytes === undefined ? /^0x([0-9a-fA-F]{2})*$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`)
  if (typeof value !== 'string' || !pattern.test(value))
    throw new ArgError(`${name}: expected ${bytes === undefined ? 'hex bytes' : `${bytes} bytes of hex`}, got ${JSON.stringify(value)}`)
  return value.toLowerCase() as Hex
}

const addressOf = (name: string, value: unknown): Address => {
  try {
    return address(value)
  } catch (error) {
    throw new ArgError(`${name}: ${(error as Error).message}`)
  }
}

const objectOf = (name: string, value: unknown): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgError(`${name}: expected an object`)
  return value as Record<string, unknown>
}

/**
 * Reads a signed authorization in either shape a merchant holds one:
 * - devnet/payments' record: `{ authorization: { primaryType?, domain?, from, to, value, validAfter, validBefore, nonce }, signature }`
 *   (primaryType defaults to the library's `ReceiveWithAuthorization`);
 * - an x402 payment payload: `{ x402Version, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } }`
 *   (always `TransferWithAuthorization`, x402's "exact" scheme).
 * A missing domain means this devnet's token.
 */
export function pastedAuthorization(value: unknown): Pasted {
  let root = objectOf('authorization', value)
  let x402 = false
  if ('payload' in root) {
    root = objectOf('payload', root.payload)
    x402 = true
  }
  const a = objectOf('authorization', root.authorization)
  const primaryType = a.primaryType ?? (x402 ? 'TransferWithAuthorization' : 'ReceiveWithAuthorization')
  if (primaryType !== 'ReceiveWithAuthorization' && primaryType !== 'TransferWithAuthorization')
    throw new ArgError(`primaryType: expected ReceiveWithAuthorization or TransferWithAuthorization, got ${JSON.stringify(primaryType)}`)
  let domain: Pasted['domain']
  if (a.domain !== undefined) {
    const d = objectOf('domain', a.domain)
    if (typeof d.name !== 'string' || typeof d.version !== 'string') throw new ArgError('domain: expected name and version strings')
    domain = {
      name: d.name,
      version: d.version,
      chainId: Number(integer('domain.chainId', d.chainId)),
      verifyingContract: addressOf('domain.verifyingContract', d.verifyingContract),
    }
  }
  return {
    primaryType,
    domain,
    from: addressOf('from', a.from),
    to: addressOf('to', a.to),
    value: integer('value', a.value),
    validAfter: integer('validAfter', a.validAfter),
    validBefore: integer('validBefore', a.validBefore),
    nonce: hexOf('nonce', a.nonce, 32),
    signature: hexOf('signature', root.signature),
  }
}

/**
 * # devnet_checkAuthorization
 *
 * Would this signed EIP-3009 authorization capture now? Runs devnet/payments'
 * `checkBeforeCapture` (src/payments/check.ts) against the pending state and
 * answers every failing reason, the same words the library gives a merchant.
 * The live page's paste box calls it; so can any script.
 *
 * ## Implementation details
 * The payments library talks to a node only over JSON-RPC, and here too: its
 * viem client's transport is `request`, this devnet's own JSON-RPC dispatch
 * (the same decode, handler and encode an HTTP request goes through, without
 * a loopback socket). Its reads are `eth_call`s at `pending` and never enter
 * the write queue, so calling back into the node from a method cannot
 * deadlock. The library loads on the first call.
 *
 * @example
 * ```json
 * >> {"method":"devnet_checkAuthorization","params":[{"authorization":{"from":"0x7099…","to":"0x3c44…","value":"12500000",
 *      "validAfter":"0","validBefore":"1767229200","nonce":"0x…"},"signature":"0x…"}]}
 * << {"result":{"ok":true,"failures":[],"skipped":[],"method":"receiveWithAuthorization","timestamp":"0x…",
 *      "authorization":{"primaryType":"ReceiveWithAuthorization","from":"0x…",…},"submitter":"0x3c44…"}}
 * ```
 * The optional second parameter is the account that would send the capture
 * (default: the payee, who alone may send `receiveWithAuthorization`).
 */
export function createCheckAuthorizationMethod(options: { request: () => EIP1193RequestFn; token: Address }): MethodDef {
  return defineMethod({
    method: 'devnet_checkAuthorization',
    params: [pastedAuthorization, address],
    required: 1,
    handler: async (_context, [pasted, submitterParam]) => {
      const [{ createClient, custom }, { checkBeforeCapture }, { readTokenDomain }] = await Promise.all([
        import('./viemClient.js'),
        import('../payments/check.js'),
        import('../payments/domain.js'),
      ])
      const client = createClient({ transport: custom({ request: options.request() }) })
      const domain = pasted.domain ?? (await readTokenDomain(client, options.token))
      const { signature, ...fields } = pasted
      const authorization = { ...fields, domain }
      const submitter = submitterParam ?? pasted.to
      const check = await checkBeforeCapture({ client, authorization, signature, submitter })
      return {
        ok: check.ok,
        failures: check.failures,
        skipped: check.skipped,
        method: check.method,
        timestamp: q(check.timestamp),
        authorization: {
          primaryType: authorization.primaryType,
          domain,
          from: authorization.from,
          to: authorization.to,
          value: authorization.value.toString(),
          validAfter: authorization.validAfter.toString(),
          validBefore: authorization.validBefore.toString(),
          nonce: authorization.nonce,
        },
        submitter,
      }
    },
  })
}

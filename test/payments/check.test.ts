import {
  type Address,
  type Hex,
  createClient,
  custom,
  decodeFunctionData,
  encodeFunctionResult,
  numberToHex,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import {
  CaptureCheckError,
  PaymentsError,
  TransactionRevertedError,
  capture,
  checkBeforeCapture,
  createAuthorization,
  createMemoryStore,
  decodeRevert,
  signAuthorization,
  tokenAbi,
} from '../../src/payments/index.js'
import { redactError } from '../../src/payments/errors.js'

const mnemonic = 'test test test test test test test test test test test junk'
const payer = mnemonicToAccount(mnemonic, { addressIndex: 1 })
const shop = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const stranger = mnemonicToAccount(mnemonic, { addressIndex: 3 })
const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const domain = { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: token } as const

/** A JSON-RPC node that knows only a token's views: enough for checkBeforeCapture. */
function createFakeToken() {
  const state = {
    chainId: 31337,
    timestamp: 1_750_000_000n,
    balances: new Map<string, bigint>([[payer.address.toLowerCase(), 100_000_000n]]),
    paused: false,
    blacklisted: new Set<string>(),
    used: new Set<string>(),
    sent: [] as string[],
  }
  const client = createClient({
    transport: custom({
      async request({ method, params }) {
        if (method === 'eth_chainId') return numberToHex(state.chainId)
        if (method === 'eth_getCode') return '0x'
        if (method === 'eth_getBlockByNumber')
          return { number: '0x10', hash: null, timestamp: numberToHex(state.timestamp), transactions: [], baseFeePerGas: '0x1' }
        if (method === 'eth_call') {
          const [{ data }] = params as [{ data: Hex }]
          const call = decodeFunctionData({ abi: tokenAbi, data })
          const args = (call.args ?? []) as readonly unknown[]
          const result = (() => {
            switch (call.functionName) {
              case 'authorizationState':
                return state.used.has(`${String(args[0]).toLowerCase()}:${args[1]}`)
              case 'balanceOf':
                return state.balances.get(String(args[0]).toLowerCase()) ?? 0n
              case 'paused':
                return state.paused
              case 'isBlacklisted':
                return state.blacklisted.has(String(args[0]).toLowerCase())
              default:
                throw new Error(`unexpected ${call.functionName}`)
            }
          })()
          return encodeFunctionResult({ abi: tokenAbi, functionName: call.functionName, result } as never)
        }
        state.sent.push(method)
        throw new Error(`unexpected ${method}`)
      },
    }),
  })
  return { state, client }
}

const authorize = (overrides: Partial<Parameters<typeof createAuthorization>[0]> = {}) =>
  createAuthorization({
    domain,
    from: payer.address,
    to: shop.address,
    amount: '12.50',
    now: () => 1_750_000_000_000,
    ...overrides,
  })

describe('checkBeforeCapture', () => {
  test('default: passes', async () => {
    const { client } = createFakeToken()
    const authorization = authorize()
    const signature = await signAuthorization({ authorization, signer: payer })
    const result = await checkBeforeCapture({ client, authorization, signature, submitter: shop.address })
    expect(result).toMatchObject({ ok: true, failures: [], skipped: [], method: 'receiveWithAuthorization', timestamp: 1_750_000_000n })
  })

  test('behavior: reports every failing reason, not just the first', async () => {
    const { client, state } = createFakeToken()
    const authorization = authorize({ amount: '500' })
    state.used.add(`${payer.address.toLowerCase()}:${authorization.nonce}`)
    state.paused = true
    state.blacklisted.add(payer.address.toLowerCase())
    state.blacklisted.add(shop.address.toLowerCase())
    state.timestamp = authorization.validBefore
    state.chainId = 1
    const signature = await signAuthorization({ authorization: { ...authorization, primaryType: 'TransferWithAuthorization' }, signer: payer })
    const result = await checkBeforeCapture({
      client,
      authorization,
      signature,
      submitter: stranger.address,
      method: 'transferWithAuthorization',
    })
    expect(result.ok).toBe(false)
    expect(result.failures.map((f) => f.reason)).toEqual([
      'chain-mismatch',
      'primary-type-mismatch',
      'invalid-signature',
      'used-or-canceled',
      'insufficient-balance',
      'expired',
      'paused',
      'blacklisted',
      'blacklisted',
    ])
    expect(result.failures.find((f) => f.reason === 'primary-type-mismatch')?.message).toMatchInlineSnapshot(
      `"The payer signed ReceiveWithAuthorization, which only receiveWithAuthorization accepts; transferWithAuthorization would revert with "FiatTokenV2: invalid signature". Capture with receiveWithAuthorization, or have the payer sign TransferWithAuthorization."`,
    )
    expect(result.failures.find((f) => f.reason === 'insufficient-balance')?.message).toBe(
      'The payer holds 100.00, less than the 500.00 authorized.',
    )
  })

  test('behavior: not yet valid (strict bound, as the token)', async () => {
    const { client, state } = createFakeToken()
    const authorization = authorize()
    state.timestamp = authorization.validAfter
    const result = await checkBeforeCapture({ client, authorization, submitter: shop.address })
    expect(result.failures.map((f) => f.reason)).toEqual(['not-yet-valid'])
  })

  test('behavior: receive must be submitted by the payee', async () => {
    const { client } = createFakeToken()
    const authorization = authorize()
    const result = await checkBeforeCapture({ client, authorization, submitter: stranger.address })
    expect(result.failures).toEqual([
      {
        reason: 'caller-not-payee',
        message: `receiveWithAuthorization must be sent by the payee ${shop.address}, not ${stranger.address}.`,
      },
    ])
    // anyone may submit a transfer authorization
    const transfer = authorize({ primaryType: 'TransferWithAuthorization' })
    expect((await checkBeforeCapture({ client, authorization: transfer, submitter: stranger.address })).ok).toBe(true)
  })

  test('behavior: capture refuses before any gas is spent, listing every reason', async () => {
    const { client, state } = createFakeToken()
    const store = createMemoryStore()
    const authorization = authorize({ primaryType: 'TransferWithAuthorization' })
    const signature = await signAuthorization({ authorization, signer: payer })
    await store.insert({ orderId: 'o1', authorization, signature })
    state.paused = true
    const wallet = createClient({ account: shop, transport: custom({ request: client.request }) })
    const error = await capture({ wallet, store, orderId: 'o1', method: 'receiveWithAuthorization' }).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['primary-type-mismatch', 'paused'])
    expect(error.message).not.toContain(signature.slice(2, 40))
    expect(state.sent).toEqual([])
    expect((await store.get('o1'))?.state).toBe('authorized')
  })
})

describe('decodeRevert', () => {
  test.each([
    ['FiatTokenV2: authorization is expired', 'expired'],
    ['FiatTokenV2: authorization is not yet valid', 'not-yet-valid'],
    ['FiatTokenV2: authorization is used or canceled', 'used-or-canceled'],
    ['FiatTokenV2: invalid signature', 'invalid-signature'],
    ['FiatTokenV2: caller must be the payee', 'caller-not-payee'],
    ['ECRecover: invalid signature length', 'invalid-signature'],
    ['Pausable: paused', 'paused'],
    ['Blacklistable: account is blacklisted', 'blacklisted'],
    ['ERC20: transfer amount exceeds balance', 'insufficient-balance'],
  ])('%s', (message, reason) => {
    const node = Object.assign(new Error(`execution reverted: ${message}`), { code: 3 })
    expect(decodeRevert(new Error('wrapped', { cause: node }))).toEqual({ reason, revertMessage: message })
  })

  test('behavior: Error(string) data', () => {
    const data = '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000105061757361626c653a2070617573656400000000000000000000000000000000'
    expect(decodeRevert({ data })).toEqual({ reason: 'paused', revertMessage: 'Pausable: paused' })
  })

  test('behavior: unknown', () => {
    expect(decodeRevert(new Error('nonce too low'))).toBeUndefined()
  })
})

describe('errors', () => {
  test('behavior: viem-like shape, walk() reaches the cause', () => {
    const cause = Object.assign(new Error('boom'), { shortMessage: 'short boom' })
    const error = new TransactionRevertedError({ action: 'capture', reason: 'paused', revertMessage: 'Pausable: paused', cause })
    expect(error).toBeInstanceOf(PaymentsError)
    expect(error.walk()).toBe(cause)
    expect(error.message).toMatchInlineSnapshot(`
      "The capture reverted: paused.

      Token said: Pausable: paused

      Docs: https://github.com/devnet/devnet/blob/main/README.md#capture
      Details: short boom
      Version: devnet@0.1.0"
    `)
  })

  test('behavior: redactError scrubs signatures from the whole chain', () => {
    const signature = `0x${'ab'.repeat(32)}${'cd'.repeat(32)}1b` as Address
    const inner = new Error(`call data 0xdeadbeef${signature.slice(2).toUpperCase()}`)
    const outer = Object.assign(new Error(`args: ${signature}`, { cause: inner }), {
      metaMessages: [`sig ${signature}`],
      shortMessage: signature,
    })
    redactError(outer, [signature])
    expect(outer.message).toBe('args: [redacted]')
    expect(outer.shortMessage).toBe('[redacted]')
    expect(outer.metaMessages).toEqual(['sig [redacted]'])
    expect(inner.message).toBe('call data 0xdeadbeef[redacted]')
  })
})

import { type Hex, createWalletClient, custom, parseAbi, zeroHash } from 'viem'
import { getBlock, readContract, simulateContract, writeContract } from 'viem/actions'
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  type Authorization,
  CaptureCheckError,
  NonceReusedError,
  type PaymentStore,
  RecordStateError,
  TransactionRevertedError,
  cancelAuthorization,
  capture,
  checkBeforeCapture,
  confirmCapture,
  createAuthorization,
  createMemoryStore,
  createTokenIndexer,
  encodeCapture,
  readTokenDomain,
  signAuthorization,
  tokenAbi,
  voidAuthorization,
} from '../../src/payments/index.js'
import {
  type Clients,
  type Devnet,
  createClients,
  isMethodMissing,
  merchantAccount,
  payerAccount,
  startDevnet,
  strangerAccount,
} from './utils.js'

const started = await startDevnet()
const reason = 'reason' in started ? started.reason : ''

/** Every string an error chain would print. */
const chainText = (error: unknown) => {
  const texts: string[] = []
  for (let e = error as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.message === 'string') texts.push(e.message)
  return texts.join('\n').toLowerCase()
}
const expectNoSignature = (error: unknown, signature: Hex) => {
  const text = chainText(error)
  expect(text).not.toContain(signature.slice(2, 66).toLowerCase())
  expect(text).not.toContain(signature.slice(66, 130).toLowerCase())
}

describe.skipIf(!('devnet' in started))(`payments on devnet${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let devnet = (started as { devnet: Devnet }).devnet
  let clients: Clients
  let store: PaymentStore
  let snapshot: Hex | undefined
  let token: Hex

  afterAll(async () => {
    await devnet.close()
  })
  beforeEach(async () => {
    try {
      snapshot = (await devnet.request({ method: 'evm_snapshot' } as never)) as Hex
    } catch (error) {
      if (!isMethodMissing(error)) throw error
      // No evm_snapshot yet: isolate with a fresh devnet per test instead.
      snapshot = undefined
      await devnet.close()
      const next = await startDevnet()
      if (!('devnet' in next)) throw new Error(next.reason)
      devnet = next.devnet
    }
    clients = createClients(devnet)
    token = devnet.token.address
    store = createMemoryStore()
  })
  afterEach(async () => {
    if (snapshot) await devnet.request({ method: 'evm_revert', params: [snapshot] } as never)
  })

  /** Chain time (pending block) in ms, so the window is built on the devnet's virtual clock. */
  const chainNow = async () => Number((await getBlock(clients.client, { blockTag: 'pending' })).timestamp) * 1000
  const balanceOf = (address: Hex) =>
    readContract(clients.client, { address: token, abi: tokenAbi, functionName: 'balanceOf', args: [address], blockTag: 'pending' })
  /** A devnet cheat, or skip the test when the devnet does not have it yet. */
  const cheat = async (ctx: { skip: (note?: string) => void }, method: string, params: unknown[]) => {
    try {
      return await devnet.request({ method, params } as never)
    } catch (error) {
      if (isMethodMissing(error)) ctx.skip(`${method} is not implemented by the devnet yet`)
      throw error
    }
  }

  /** Buyer authorizes `amount` to the merchant and the backend stores it. */
  async function checkout(orderId: string, options: Partial<Parameters<typeof createAuthorization>[0]> = {}) {
    const domain = await readTokenDomain(clients.client, token)
    const authorization = createAuthorization({
      domain,
      from: payerAccount.address,
      to: merchantAccount.address,
      amount: '12.50',
      now: await chainNow(),
      ...options,
    })
    const signature = await signAuthorization({ authorization, signer: clients.payer })
    await store.insert({ orderId, authorization, signature })
    return { authorization, signature }
  }

  test('default: authorize, store, check, capture, seal, index', async () => {
    const domain = await readTokenDomain(clients.client, token)
    expect(domain).toEqual({ name: 'USD Coin', version: '2', chainId: devnet.chain.id, verifyingContract: token })

    const before = { payer: await balanceOf(payerAccount.address), merchant: await balanceOf(merchantAccount.address) }
    const { authorization, signature } = await checkout('order-1')
    expect((await store.get('order-1'))?.state).toBe('authorized')

    const check = await checkBeforeCapture({ client: clients.client, authorization, signature, submitter: merchantAccount.address })
    expect(check).toMatchObject({ ok: true, failures: [] })

    const result = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })
    expect(result.state).toBe('preconfirmed')
    expect(result.receipt.blockHash).toBe(zeroHash)
    expect((await store.get('order-1'))?.state).toBe('preconfirmed')
    expect(await balanceOf(payerAccount.address)).toBe(before.payer - 12_500_000n)
    expect(await balanceOf(merchantAccount.address)).toBe(before.merchant + 12_500_000n)

    // Not captured until sealed.
    expect((await confirmCapture({ client: clients.client, store, orderId: 'order-1' })).state).toBe('preconfirmed')
    await devnet.seal()
    const record = await confirmCapture({ client: clients.client, store, orderId: 'order-1' })
    expect(record.state).toBe('captured')
    expect(record.blockHash).not.toBe(zeroHash)
    expect(record.history.map((h) => h.state)).toEqual(['authorized', 'preconfirmed', 'captured'])

    // The indexer agrees and a second pass changes nothing.
    const indexer = createTokenIndexer({ store, token, client: clients.client })
    const pass = await indexer.poll()
    expect(pass.added).toBeGreaterThanOrEqual(2)
    expect(pass.moves).toEqual([])
    expect(await store.logsForNonce(authorization.nonce)).toMatchObject([{ event: 'AuthorizationUsed', blockHash: record.blockHash }])
    expect(await indexer.poll()).toMatchObject({ added: 0, removed: 0, moves: [] })
  })

  test('behavior: waitFor captured returns once the block is sealed', async () => {
    await checkout('order-1')
    const result = await capture({
      wallet: clients.merchant,
      client: clients.client,
      store,
      orderId: 'order-1',
      waitFor: 'captured',
      // Where a live devnet seals on its own, this test seals at the pre-confirmation.
      onPreconfirmed: () => devnet.seal(),
    })
    expect(result.state).toBe('captured')
    expect(result.receipt.blockHash).not.toBe(zeroHash)
    expect((await store.get('order-1'))?.history.map((h) => h.state)).toEqual(['authorized', 'preconfirmed', 'captured'])
  })

  test('behavior: a local merchant key captures with eth_sendRawTransactionSync (EIP-7966)', async (ctx) => {
    const events = (devnet as unknown as { node?: { events?: { on(name: 'pendingTx', fn: () => void): () => void } } }).node?.events
    if (!events) ctx.skip('the devnet does not expose node events to tick on')
    await checkout('order-1')
    // Straight to the devnet: no transport help. The devnet ticks when the
    // transaction enters its pool, as its 200 ms ticker would.
    const methods: string[] = []
    const transport = custom(
      {
        request: (args: { method: string; params?: unknown }) => {
          methods.push(args.method)
          return devnet.request(args as never)
        },
      },
      { retryCount: 0 },
    )
    const wallet = createWalletClient({ chain: devnet.chain, transport, account: merchantAccount })
    const off = events!.on('pendingTx', () => void devnet.preconfirm())
    try {
      const result = await capture({ wallet, client: clients.client, store, orderId: 'order-1' })
      expect(result.state).toBe('preconfirmed')
      expect(result.receipt.blockHash).toBe(zeroHash)
      expect(methods).toContain('eth_sendRawTransactionSync')
      expect(methods).not.toContain('eth_getTransactionReceipt')
    } finally {
      off()
    }
  })

  test('behavior: x402 style — TransferWithAuthorization captured by a third party with transferWithAuthorization', async () => {
    await checkout('order-1', { primaryType: 'TransferWithAuthorization' })
    const result = await capture({ wallet: clients.stranger, client: clients.client, store, orderId: 'order-1' })
    expect(result.state).toBe('preconfirmed')
  })

  test('error: wrong primary type (Transfer signed, receive submitted): devnet reverts exactly as USDC', async () => {
    const { authorization, signature } = await checkout('order-1', { primaryType: 'TransferWithAuthorization' })
    // The check says so in plain words before any gas is spent.
    const error = await capture({
      wallet: clients.merchant,
      client: clients.client,
      store,
      orderId: 'order-1',
      method: 'receiveWithAuthorization',
    }).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['primary-type-mismatch'])

    // The token itself: eth_call reverts with USDC's string.
    const simulated = await simulateContract(clients.client, {
      account: merchantAccount,
      address: token,
      abi: tokenAbi,
      functionName: 'receiveWithAuthorization',
      args: [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        signature,
      ],
    }).catch((e) => e)
    expect(chainText(simulated)).toContain('fiattokenv2: invalid signature')

    // And a capture forced past the check is decoded (rejected at gas estimation, no gas spent).
    const forced = await capture({
      wallet: clients.merchant,
      client: clients.client,
      store,
      orderId: 'order-1',
      method: 'receiveWithAuthorization',
      check: false,
    }).catch((e) => e)
    expect(forced).toBeInstanceOf(TransactionRevertedError)
    expect(forced).toMatchObject({ reason: 'invalid-signature', revertMessage: 'FiatTokenV2: invalid signature' })
    expectNoSignature(forced, signature)
    expect((await store.get('order-1'))).toMatchObject({ state: 'failed', reason: 'invalid-signature' })
  })

  test('error: wrong primary type (Receive signed, transfer submitted) reverts on chain and is decoded', async () => {
    const { signature } = await checkout('order-1')
    // Explicit gas skips estimation: the transaction is mined and reverts.
    const error = await capture({
      wallet: clients.merchant,
      client: clients.client,
      store,
      orderId: 'order-1',
      method: 'transferWithAuthorization',
      check: false,
      gas: 300_000n,
    }).catch((e) => e)
    expect(error).toBeInstanceOf(TransactionRevertedError)
    expect(error).toMatchObject({ reason: 'invalid-signature', revertMessage: 'FiatTokenV2: invalid signature' })
    expect(error.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
    expectNoSignature(error, signature)
  })

  test('error: captured by someone other than the recipient', async () => {
    const { signature } = await checkout('order-1')
    const error = await capture({ wallet: clients.stranger, client: clients.client, store, orderId: 'order-1' }).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['caller-not-payee'])
    const forced = await capture({ wallet: clients.stranger, client: clients.client, store, orderId: 'order-1', check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'caller-not-payee', revertMessage: 'FiatTokenV2: caller must be the payee' })
    expectNoSignature(forced, signature)
  })

  test('error: expired', async (ctx) => {
    const now = await chainNow()
    await checkout('order-1', { validBefore: BigInt(now / 1000 + 30) })
    await cheat(ctx, 'evm_increaseTime', [120])
    await devnet.seal()
    const error = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' }).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['expired'])
    expect((await store.get('order-1'))?.state).toBe('expired')
    await expect(capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })).rejects.toThrow(RecordStateError)
  })

  test('error: expired, submitted anyway, is decoded', async (ctx) => {
    const now = await chainNow()
    const { authorization, signature } = await checkout('order-1', { validBefore: BigInt(now / 1000 + 30) })
    await cheat(ctx, 'evm_increaseTime', [120])
    await devnet.seal()
    const error = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(error).toMatchObject({ reason: 'expired', revertMessage: 'FiatTokenV2: authorization is expired' })
  })

  test('error: not yet valid', async () => {
    const now = await chainNow()
    const { authorization, signature } = await checkout('order-1', {
      validAfter: BigInt(now / 1000 + 3600),
      validBefore: BigInt(now / 1000 + 7200),
    })
    const error = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' }).catch((e) => e)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['not-yet-valid'])
    const forced = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'not-yet-valid', revertMessage: 'FiatTokenV2: authorization is not yet valid' })
  })

  test('error: nonce reused', async () => {
    const { authorization, signature } = await checkout('order-1')
    await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })
    // The store refuses the nonce for another order...
    await expect(store.insert({ orderId: 'order-2', authorization, signature })).rejects.toThrow(NonceReusedError)
    // ...and the chain refuses it twice.
    const check = await checkBeforeCapture({ client: clients.client, authorization, signature, submitter: merchantAccount.address })
    expect(check.failures.map((f) => f.reason)).toEqual(['used-or-canceled'])
    const forced = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'used-or-canceled', revertMessage: 'FiatTokenV2: authorization is used or canceled' })
  })

  test('error: canceled, then captured', async () => {
    const { authorization, signature } = await checkout('order-1')
    const { record } = await cancelAuthorization({
      store,
      orderId: 'order-1',
      wallet: clients.merchant,
      client: clients.client,
      signer: clients.payer,
    })
    expect(record.state).toBe('canceled')
    expect(
      await readContract(clients.client, {
        address: token,
        abi: tokenAbi,
        functionName: 'authorizationState',
        args: [authorization.from, authorization.nonce],
        blockTag: 'pending',
      }),
    ).toBe(true)
    await expect(capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })).rejects.toThrow(RecordStateError)
    const forced = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'used-or-canceled' })

    // The indexer sees AuthorizationCanceled once sealed and keeps the record canceled.
    await devnet.seal()
    await createTokenIndexer({ store, token, client: clients.client }).poll()
    expect(await store.logsForNonce(authorization.nonce)).toMatchObject([{ event: 'AuthorizationCanceled' }])
    expect((await store.get('order-1'))?.state).toBe('canceled')
  })

  test('error: paused', async (ctx) => {
    const { authorization, signature } = await checkout('order-1')
    await cheat(ctx, 'devnet_setTokenPaused', [true])
    const error = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' }).catch((e) => e)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['paused'])
    const forced = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'paused', revertMessage: 'Pausable: paused' })
  })

  test('error: blacklisted (payer, then payee)', async (ctx) => {
    const { authorization, signature } = await checkout('order-1')
    await cheat(ctx, 'devnet_setTokenBlacklisted', [payerAccount.address, true])
    let check = await checkBeforeCapture({ client: clients.client, authorization, signature, submitter: merchantAccount.address })
    expect(check.failures).toMatchObject([{ reason: 'blacklisted', message: expect.stringContaining('payer') }])
    const forced = await capture({ wallet: clients.merchant, client: clients.client, authorization, signature, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'blacklisted', revertMessage: 'Blacklistable: account is blacklisted' })
    await cheat(ctx, 'devnet_setTokenBlacklisted', [payerAccount.address, false])
    await cheat(ctx, 'devnet_setTokenBlacklisted', [merchantAccount.address, true])
    check = await checkBeforeCapture({ client: clients.client, authorization, signature, submitter: merchantAccount.address })
    expect(check.failures).toMatchObject([{ reason: 'blacklisted', message: expect.stringContaining('payee') }])
  })

  test('error: the payer moved the funds after signing', async () => {
    await checkout('order-1')
    const balance = await balanceOf(payerAccount.address)
    // A signature is not a reservation: the payer can still spend everything.
    await writeContract(clients.payer, {
      address: token,
      abi: parseAbi(['function transfer(address to, uint256 value) returns (bool)']),
      functionName: 'transfer',
      args: [strangerAccount.address, balance],
    })
    expect(await balanceOf(payerAccount.address)).toBe(0n)
    const error = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' }).catch((e) => e)
    expect(error.failures.map((f: { reason: string }) => f.reason)).toEqual(['insufficient-balance'])
    expect((await store.get('order-1'))?.state).toBe('authorized')
    const forced = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1', check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'insufficient-balance', revertMessage: 'ERC20: transfer amount exceeds balance' })
    expect(await store.get('order-1')).toMatchObject({ state: 'failed', reason: 'insufficient-balance' })
  })

  test('behavior: void keeps the signature valid on chain', async () => {
    const { authorization, signature } = await checkout('order-1')
    expect((await voidAuthorization(store, 'order-1')).state).toBe('voided')
    await expect(capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })).rejects.toThrow(RecordStateError)
    // Nothing happened on chain: until validBefore the signature still works.
    const check = await checkBeforeCapture({ client: clients.client, authorization, signature, submitter: merchantAccount.address })
    expect(check.ok).toBe(true)
  })

  test('behavior: a reorg removes the capture; the indexer moves the record back, then forward on re-inclusion', async (ctx) => {
    await checkout('order-1')
    const indexer = createTokenIndexer({ store, token, client: clients.client })
    await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'order-1' })
    const raw = clients.raw.at(-1)!
    await devnet.seal()
    await indexer.poll()
    expect((await store.get('order-1'))?.state).toBe('captured')

    await cheat(ctx, 'devnet_reorg', [{ depth: 1, transactions: [] }])
    const back = await indexer.poll()
    expect(back.moves).toEqual([{ orderId: 'order-1', from: 'captured', to: 'authorized' }])
    expect((await store.get('order-1'))?.state).toBe('authorized')

    await cheat(ctx, 'devnet_reorg', [{ depth: 1, transactions: [raw] }])
    const forward = await indexer.poll()
    expect(forward.moves).toEqual([{ orderId: 'order-1', from: 'authorized', to: 'captured' }])
    expect((await store.get('order-1'))?.history.map((h) => h.state)).toEqual([
      'authorized',
      'preconfirmed',
      'captured',
      'authorized',
      'captured',
    ])
  })

  test('behavior: encodeCapture uses the (v, r, s) overload for EOA signatures', async () => {
    const { authorization, signature } = await checkout('order-1')
    expect(encodeCapture(authorization as Authorization, signature, 'receiveWithAuthorization').slice(0, 10)).toBe('0xef55bec6')
  })
})

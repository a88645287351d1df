import type { AddressInfo } from 'node:net'
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { HTTPFacilitatorClient } from '@x402/core/server'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { ExactEvmSchemeV1 } from '@x402/evm/v1'
import { paymentMiddleware, x402ResourceServer } from '@x402/express'
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch'
import express from 'express'
import { type Hex, createPublicClient, createWalletClient, http, zeroHash } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getTransactionReceipt, readContract, writeContract } from 'viem/actions'
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, test } from 'vitest'
import { tokenAbi } from '../../src/payments/index.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'
import { reasons, startFacilitator } from '../../src/x402/index.js'

/**
 * client (@x402/fetch) → resource server (@x402/express) → devnet's
 * facilitator (HTTP) → devnet (HTTP, preset base-sepolia), with the published
 * packages unmodified. Mining is manual and transactions are pre-confirmed on
 * admission (Anvil's automine-off), so a settlement answered before any seal
 * is answered on the pre-confirmed receipt, and nothing waits on a timer.
 */
const price = 10_000n // "$0.01" in USDC units
let devnet: StartedDevnet
let facilitators: Awaited<ReturnType<typeof startFacilitator>>[] = []
let server: ReturnType<ReturnType<typeof express>['listen']>
let base: string
let snapshot: Hex
/** Dev account 2 is paid; dev account 3 receives what the payer (dev account 1) drains. */
let merchant: Hex
let sink: Hex
const rpc = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })

/** Runs just before the paid request leaves the client (after signing): the payer drains here. */
let beforePaidRequest: (() => Promise<void>) | undefined
/** The PAYMENT-SIGNATURE headers the client sent. */
let sentPayments: string[] = []
/** When set, a signed request is recorded but not sent (a 599 comes back instead). */
let holdPaidRequest = false

/** Every host any fetch in this process reached: the test must run offline. */
const hostsReached = new Set<string>()
const realFetch = globalThis.fetch
globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
  hostsReached.add(new URL(input instanceof Request ? input.url : String(input)).hostname)
  return realFetch(input, init)
}) as typeof fetch

const clientFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init)
  const payment = request.headers.get('PAYMENT-SIGNATURE')
  if (payment) {
    sentPayments.push(payment)
    if (holdPaidRequest) return new Response(null, { status: 599 })
    await beforePaidRequest?.()
  }
  return fetch(request)
}

beforeAll(async () => {
  devnet = await startDevnet({
    preset: 'base-sepolia',
    mining: 'manual',
    clock: 'virtual',
    quiet: true,
    // The published client signs validBefore from Date.now(): chain time starts at wall time.
    genesisTimestamp: Math.floor(Date.now() / 1000),
  })
  merchant = devnet.accounts[2]!.address
  sink = devnet.accounts[3]!.address
  // Manual mining with each transaction pre-confirmed as it is admitted.
  await rpc('evm_setAutomine', [true])
  await rpc('evm_setAutomine', [false])

  const account = devnet.accounts[9]!.privateKey
  facilitators = await Promise.all([
    startFacilitator({ rpcUrl: devnet.url, account }),
    startFacilitator({ rpcUrl: devnet.url, account: devnet.accounts[8]!.privateKey, waitFor: 'sealed' }),
  ])
  const accepts = { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: merchant, maxTimeoutSeconds: 300 } as const
  const resourceServer = (url: string) =>
    new x402ResourceServer(new HTTPFacilitatorClient({ url })).register('eip155:84532', new ExactEvmServerScheme())
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /weather': { accepts, description: 'the weather' },
        'GET /drain-in-handler': { accepts, description: 'the payer drains while the handler runs' },
      },
      resourceServer(facilitators[0]!.url),
    ),
  )
  app.use(paymentMiddleware({ 'GET /sealed': { accepts, description: 'settled on the sealed block' } }, resourceServer(facilitators[1]!.url)))
  app.get('/weather', (_req, res) => {
    res.json({ weather: 'sunny' })
  })
  app.get('/drain-in-handler', async (_req, res) => {
    await drainPayer()
    res.json({ weather: 'drained' })
  })
  app.get('/sealed', (_req, res) => {
    res.json({ weather: 'sealed' })
  })
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  globalThis.fetch = realFetch
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  await Promise.all(facilitators.map((f) => f.close()))
  await devnet?.close()
})

beforeEach(async () => {
  snapshot = await rpc('evm_snapshot')
  beforePaidRequest = undefined
  holdPaidRequest = false
  sentPayments = []
})
afterEach(async () => {
  await rpc('evm_revert', [snapshot])
})

const payerKey = () => devnet.accounts[1]!.privateKey

const clients = () => {
  const transport = http(devnet.url)
  const publicClient = createPublicClient({ chain: devnet.chain, transport })
  const payer = privateKeyToAccount(payerKey())
  const wallet = createWalletClient({ chain: devnet.chain, transport, account: payer })
  return { publicClient, payer, wallet }
}

/** The published fetch wrapper, paying with dev account 1 through a viem account and client. */
const paidFetch = () => {
  const { publicClient, payer } = clients()
  return wrapFetchWithPaymentFromConfig(clientFetch, {
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, publicClient)) }],
  })
}

const balanceOf = (holder: Hex, blockTag: 'pending' | 'latest' = 'pending') =>
  readContract(clients().publicClient, { address: devnet.token.address, abi: tokenAbi, functionName: 'balanceOf', args: [holder], blockTag })

/** The payer moves everything to another account: a real transfer, pre-confirmed but not sealed. */
async function drainPayer() {
  const { wallet, payer } = clients()
  const all = await balanceOf(payer.address)
  await writeContract(wallet, { address: devnet.token.address, abi: tokenAbi, functionName: 'transfer', args: [sink, all] })
}

/**
 * Why the resource server answered 402, and where: `verify` (the
 * PAYMENT-REQUIRED header carries the facilitator's invalidReason, and the
 * handler never ran) or `settle` (the PAYMENT-RESPONSE header carries the
 * failed settlement).
 */
const refusal = (response: Response) => {
  expect(response.status).toBe(402)
  const settle = response.headers.get('PAYMENT-RESPONSE')
  if (settle) return { settle: decodePaymentResponseHeader(settle).errorReason }
  return { verify: decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).error }
}

describe('x402 exact on devnet (published client, middleware; devnet facilitator)', () => {
  test('default: pays the 402, settles on the pre-confirmed receipt, moves the tokens', async () => {
    const { payer } = clients()
    const [payerBefore, merchantBefore] = [await balanceOf(payer.address), await balanceOf(merchant)]
    const head = (await clients().publicClient.getBlockNumber())

    const response = await paidFetch()(`${base}/weather`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ weather: 'sunny' })
    const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: payer.address })
    const receipt = await getTransactionReceipt(clients().publicClient, { hash: settlement.transaction as Hex })
    expect(receipt.status).toBe('success')
    // Answered before any seal: the receipt is the pre-confirmed one.
    expect(receipt.blockHash).toBe(zeroHash)
    expect(await clients().publicClient.getBlockNumber()).toBe(head)
    expect(await balanceOf(payer.address)).toBe(payerBefore - price)
    expect(await balanceOf(merchant)).toBe(merchantBefore + price)
    expect(await balanceOf(merchant, 'latest')).toBe(merchantBefore)

    await devnet.seal()
    const sealed = await getTransactionReceipt(clients().publicClient, { hash: settlement.transaction as Hex })
    expect(sealed.blockHash).not.toBe(zeroHash)
    expect(await balanceOf(merchant, 'latest')).toBe(merchantBefore + price)
  })

  test('behavior: waitFor sealed answers only once the block is sealed', async () => {
    const seen = new Promise<void>((resolve) => {
      const off = devnet.node.events.on('pendingTx', () => {
        off()
        resolve()
      })
    })
    const pending = paidFetch()(`${base}/sealed`)
    await seen
    const sealedBlock = await devnet.seal()
    const response = await pending
    expect(response.status).toBe(200)
    const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
    const receipt = await getTransactionReceipt(clients().publicClient, { hash: settlement.transaction as Hex })
    expect(receipt.blockHash).toBe(sealedBlock.hash)
  })

  test('behavior: concurrent payments of five payers settle with consecutive nonces of one account', async () => {
    const { publicClient } = clients()
    const settler = devnet.accounts[9]!.address
    const firstNonce = await publicClient.getTransactionCount({ address: settler, blockTag: 'pending' })
    const merchantBefore = await balanceOf(merchant)
    const payers = [1, 4, 5, 6, 7].map((i) => privateKeyToAccount(devnet.accounts[i]!.privateKey))
    const responses = await Promise.all(
      payers.map((payer) =>
        wrapFetchWithPaymentFromConfig(fetch, {
          schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, publicClient)) }],
        })(`${base}/weather`),
      ),
    )
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    const transactions = await Promise.all(
      responses.map((r) =>
        publicClient.getTransaction({ hash: decodePaymentResponseHeader(r.headers.get('PAYMENT-RESPONSE')!).transaction as Hex }),
      ),
    )
    expect(transactions.map((t) => t.from.toLowerCase())).toEqual(Array(5).fill(settler.toLowerCase()))
    expect(transactions.map((t) => t.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4].map((i) => firstNonce + i))
    expect(await balanceOf(merchant)).toBe(merchantBefore + 5n * price)
  })

  test('error: insufficient funds', async () => {
    await rpc('devnet_setTokenBalance', [clients().payer.address, (price - 1n).toString()])
    const response = await paidFetch()(`${base}/weather`)
    expect(refusal(response)).toEqual({ verify: reasons.balance })
    expect(await balanceOf(merchant)).toBe(await balanceOf(merchant, 'latest'))
  })

  test('error: payer drained after signing, before the request (refused at verify)', async () => {
    beforePaidRequest = drainPayer
    const response = await paidFetch()(`${base}/weather`)
    expect(refusal(response)).toEqual({ verify: reasons.balance })
    // The drain is pre-confirmed only: `latest` still shows the funds a
    // facilitator reading it would have accepted.
    expect(await balanceOf(clients().payer.address, 'latest')).toBeGreaterThan(price)
  })

  test('error: payer drained after verify, while the handler ran (refused at settle)', async () => {
    const merchantBefore = await balanceOf(merchant)
    const response = await paidFetch()(`${base}/drain-in-handler`)
    expect(response.status).toBe(402)
    const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
    expect(settlement).toMatchObject({ success: false, errorReason: reasons.balance, transaction: '' })
    expect(await balanceOf(merchant)).toBe(merchantBefore)
  })

  test('error: replay of a settled payment', async () => {
    expect((await paidFetch()(`${base}/weather`)).status).toBe(200)
    const merchantAfter = await balanceOf(merchant)
    const replay = await fetch(`${base}/weather`, { headers: { 'PAYMENT-SIGNATURE': sentPayments[0]! } })
    expect(refusal(replay)).toEqual({ verify: reasons.nonceUsed })
    expect(await balanceOf(merchant)).toBe(merchantAfter)
  })

  test('error: the same payment sent twice at once settles once', async () => {
    holdPaidRequest = true
    expect((await paidFetch()(`${base}/weather`)).status).toBe(599)
    const merchantBefore = await balanceOf(merchant)
    const headers = { 'PAYMENT-SIGNATURE': sentPayments[0]! }
    const responses = await Promise.all([fetch(`${base}/weather`, { headers }), fetch(`${base}/weather`, { headers })])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 402])
    expect(await balanceOf(merchant)).toBe(merchantBefore + price)
  })

  test('error: expired authorization', async () => {
    holdPaidRequest = true
    await paidFetch()(`${base}/weather`)
    // Past validBefore (now + maxTimeoutSeconds) on chain time.
    await rpc('evm_increaseTime', [3600])
    await devnet.seal()
    const response = await fetch(`${base}/weather`, { headers: { 'PAYMENT-SIGNATURE': sentPayments[0]! } })
    expect(refusal(response)).toEqual({ verify: reasons.validBefore })
  })

  test('error: token paused', async () => {
    await rpc('devnet_setTokenPaused', [true])
    expect(refusal(await paidFetch()(`${base}/weather`))).toEqual({ verify: reasons.paused })
  })

  test('error: payer blacklisted', async () => {
    await rpc('devnet_setTokenBlacklisted', [clients().payer.address, true])
    expect(refusal(await paidFetch()(`${base}/weather`))).toEqual({ verify: reasons.blacklisted })
  })
})

describe('facilitator HTTP API', () => {
  /** A payload the published client signed, never sent to the resource server. */
  const signed = async () => {
    holdPaidRequest = true
    await paidFetch()(`${base}/weather`)
    const paymentPayload = decodePaymentSignatureHeader(sentPayments.at(-1)!) as any
    return { x402Version: 2, paymentPayload, paymentRequirements: structuredClone(paymentPayload.accepted) }
  }
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${facilitators[0]!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  const verify = async (body: unknown) => (await post('/verify', body)).body

  test('default: /verify accepts what the client signed, /supported names the chain and signer', async () => {
    const body = await signed()
    expect(await verify(body)).toEqual({ isValid: true, payer: clients().payer.address })
    expect(await (await fetch(`${facilitators[0]!.url}/supported`)).json()).toEqual({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
        { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
      ],
      extensions: [],
      signers: { 'eip155:*': [devnet.accounts[9]!.address] },
    })
  })

  test('error: each mismatch with the requirements has its reason', async () => {
    const body = await signed()
    const variant = async (change: (b: any) => void) => {
      const copy = structuredClone(body) as any
      change(copy)
      const result = await verify(copy)
      expect(result.isValid).toBe(false)
      return result.invalidReason
    }
    expect(await variant((b) => (b.paymentPayload.x402Version = 3))).toBe(reasons.invalidVersion)
    expect(await variant((b) => (b.paymentRequirements.scheme = 'upto'))).toBe(reasons.scheme)
    expect(await variant((b) => (b.paymentRequirements.network = 'eip155:8453'))).toBe(reasons.network)
    expect(
      await variant((b) => {
        b.paymentRequirements.network = 'eip155:8453'
        b.paymentPayload.accepted.network = 'eip155:8453'
      }),
    ).toBe(reasons.network)
    expect(await variant((b) => (b.paymentRequirements.payTo = sink))).toBe(reasons.recipient)
    expect(await variant((b) => (b.paymentRequirements.amount = '20000'))).toBe(reasons.value)
    expect(await variant((b) => delete b.paymentRequirements.extra)).toBe(reasons.missingDomain)
    expect(await variant((b) => (b.paymentRequirements.extra.name = 'USD Coin'))).toBe(reasons.tokenName)
    expect(await variant((b) => (b.paymentRequirements.extra.version = '1'))).toBe(reasons.tokenVersion)
    expect(await variant((b) => (b.paymentRequirements.asset = sink))).toBe(reasons.assetNotDeployed)
    expect(await variant((b) => (b.paymentPayload.payload.authorization.value = '0x10'))).toBe(reasons.invalidPayload)
    expect(
      await variant((b) => {
        const auth = b.paymentPayload.payload.authorization
        auth.validBefore = String(BigInt(auth.validBefore) + 1n)
      }),
    ).toBe(reasons.signature)
  })

  test('args: x402 v1 (the published v1 client scheme: network base-sepolia, maxAmountRequired)', async () => {
    const { publicClient, payer } = clients()
    const paymentRequirements = {
      scheme: 'exact',
      network: 'base-sepolia',
      maxAmountRequired: price.toString(),
      resource: `${base}/weather`,
      description: 'the weather',
      mimeType: 'application/json',
      payTo: merchant,
      maxTimeoutSeconds: 300,
      asset: devnet.token.address,
      extra: { name: 'USDC', version: '2' },
    }
    const client = new ExactEvmSchemeV1(toClientEvmSigner(payer, publicClient))
    const paymentPayload = await client.createPaymentPayload(1, paymentRequirements as never)
    const body = { x402Version: 1, paymentPayload, paymentRequirements }
    expect(await verify(body)).toEqual({ isValid: true, payer: payer.address })
    const merchantBefore = await balanceOf(merchant)
    const settled = (await post('/settle', body)).body
    expect(settled).toMatchObject({ success: true, network: 'base-sepolia', payer: payer.address, amount: '10000' })
    expect(await balanceOf(merchant)).toBe(merchantBefore + price)
    expect((await post('/settle', body)).body).toMatchObject({ success: false, errorReason: reasons.nonceUsed, transaction: '' })
  })

  test('error: a failed settlement sends nothing', async () => {
    const body = (await signed()) as any
    body.paymentPayload.payload.signature = `${body.paymentPayload.payload.signature.slice(0, -4)}0000`
    const { status, body: result } = await post('/settle', body)
    expect(status).toBe(200)
    expect(result).toMatchObject({ success: false, errorReason: reasons.signature, transaction: '', network: 'eip155:84532' })
    expect(await rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
  })

  test('error: a body that is not the client envelope is a 400; other routes 404/405', async () => {
    expect(await post('/verify', '{not json')).toEqual({ status: 400, body: { error: 'the body is not valid JSON' } })
    expect(await post('/settle', { paymentPayload: {} })).toEqual({
      status: 400,
      body: { error: 'paymentRequirements must be an object' },
    })
    expect((await fetch(`${facilitators[0]!.url}/verify`)).status).toBe(405)
    expect((await fetch(`${facilitators[0]!.url}/discovery/resources`)).status).toBe(404)
  })

  test('behavior: nothing left 127.0.0.1 (no hosted facilitator)', () => {
    expect([...hostsReached]).toEqual(['127.0.0.1'])
  })
})

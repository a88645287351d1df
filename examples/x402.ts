/**
 * A payment negotiated over HTTP with x402's "exact" scheme, end to end on a
 * local devnet (`npx tsx examples/x402.ts`, or `npm run example -- x402`):
 *
 *   client (@x402/fetch)  →  resource server (@x402/express)  →  devnet's
 *   facilitator (devnet/x402)  →  devnet (--preset base-sepolia)
 *
 * The published packages run unmodified: the preset gives the chain Base
 * Sepolia's id (84532) and its USDC address, name and version, which the
 * packages already know, and the resource server is pointed at devnet's
 * facilitator instead of the hosted one. The devnet mines on its timers (a
 * pre-confirmation every 200 ms, a block every 2 s), so the figures printed
 * are live ones.
 */
import type { AddressInfo } from 'node:net'
import { HTTPFacilitatorClient } from '@x402/core/server'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/express'
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch'
import express from 'express'
import { type Hex, createPublicClient, createWalletClient, http, zeroHash } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { readContract, waitForTransactionReceipt, writeContract } from 'viem/actions'
import { startDevnet } from '../src/index.js'
import { formatAmount, tokenAbi } from '../src/payments/index.js'
import { startFacilitator } from '../src/x402/index.js'

const step = (label: string, detail = '') => console.log(`  ${label.padEnd(24)} ${detail}`)
const short = (hex: string) => `${hex.slice(0, 10)}…${hex.slice(-4)}`

const devnet = await startDevnet({ preset: 'base-sepolia', quiet: true })
const [, buyerKeys, merchantKeys, elsewhereKeys] = devnet.accounts
// The facilitator pays the gas of every settlement from the last dev account.
const facilitator = await startFacilitator({ rpcUrl: devnet.url, account: devnet.accounts.at(-1)!.privateKey })

const app = express()
const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register(
  'eip155:84532',
  new ExactEvmServerScheme(),
)
const accepts = { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: merchantKeys!.address } as const
app.use(paymentMiddleware({ 'GET /weather': { accepts, description: 'Today’s weather' } }, resourceServer))
app.get('/weather', (_req, res) => {
  res.json({ report: 'sunny', temperature: 21 })
})
const server = app.listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/weather`

const transport = http(devnet.url)
const publicClient = createPublicClient({ chain: devnet.chain, transport, pollingInterval: 50 })
const buyer = privateKeyToAccount(buyerKeys!.privateKey)
const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(buyer, publicClient)) }],
})
const balance = (holder: Hex) =>
  readContract(publicClient, { address: devnet.token.address, abi: tokenAbi, functionName: 'balanceOf', args: [holder], blockTag: 'pending' })

console.log(`\ndevnet ${devnet.url} (chain 84532), facilitator ${facilitator.url}, resource ${url}`)

console.log('\n1. A paid request')
const unpaid = await fetch(url)
const offer = decodePaymentRequiredHeader(unpaid.headers.get('PAYMENT-REQUIRED')!).accepts[0]!
step('402 Payment Required', `${formatAmount(BigInt(offer.amount))} USDC to ${short(offer.payTo)} on ${offer.network}`)
const before = await balance(merchantKeys!.address)
const started = performance.now()
const response = await pay(url)
const answered = performance.now() - started
const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
step(`${response.status} OK`, JSON.stringify(await response.json()))
step('settled in', `${short(settlement.transaction)} (pre-confirmed), whole round trip ${answered.toFixed(0)} ms`)
step('merchant received', `${formatAmount((await balance(merchantKeys!.address)) - before)} USDC (pending)`)
const receipt = await waitForTransactionReceipt(publicClient, { hash: settlement.transaction as Hex })
step('sealed', `block ${receipt.blockNumber}, ${(performance.now() - started).toFixed(0)} ms after the request`)

console.log('\n2. The buyer signs, then drains the wallet before the server settles')
const wallet = createWalletClient({ chain: devnet.chain, transport, account: buyer })
const drainFirst: typeof fetch = async (input, init) => {
  const request = new Request(input, init)
  if (request.headers.has('PAYMENT-SIGNATURE')) {
    const all = await balance(buyer.address)
    const hash = await writeContract(wallet, { address: devnet.token.address, abi: tokenAbi, functionName: 'transfer', args: [elsewhereKeys!.address, all] })
    // The first receipt is the pre-confirmed one (≤ 200 ms): the block is not sealed yet.
    const drained = await waitForTransactionReceipt(publicClient, { hash })
    step('drained', `${formatAmount(all)} USDC moved away, pre-confirmed${drained.blockHash === zeroHash ? ', not sealed' : ''}`)
  }
  return fetch(request)
}
const payThenDrain = wrapFetchWithPaymentFromConfig(drainFirst, {
  schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(buyer, publicClient)) }],
})
// The facilitator reads `pending`: the drain is pre-confirmed, so it is seen before any block seals it.
const refused = await payThenDrain(url)
step(`${refused.status} refused`, decodePaymentRequiredHeader(refused.headers.get('PAYMENT-REQUIRED')!).error ?? '')

server.closeAllConnections()
await new Promise((resolve) => server.close(resolve))
await facilitator.close()
await devnet.close()

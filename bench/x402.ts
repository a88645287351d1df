/**
 * x402 settle latency on devnet: the facilitator answering `/settle` on the
 * pre-confirmed receipt vs waiting for the sealed block, at the CLI's default
 * timing (a pre-confirmation every 200 ms, a block every 2 s, wall clock).
 *
 * One devnet (`--preset base-sepolia`, in this process, over HTTP), two
 * devnet/x402 facilitators on it (one per `waitFor`), payments signed by the
 * published `@x402/evm` client scheme, posted one at a time to `POST /settle`
 * as the `@x402/core` HTTPFacilitatorClient would, timed from the request to
 * the answer. A settle re-verifies at `pending`, sends
 * `transferWithAuthorization` and polls the receipt every 25 ms.
 *
 *   npx tsx bench/x402.ts                 # 30 payments per mode
 *   npx tsx bench/x402.ts --count 50
 *
 * Prints figures; never asserts on time. Two arrival patterns: back to
 * back, where each settle starts right after the previous answer and so at
 * the start of a tick or block (a full tick or block to wait: the worst
 * case), and random, where an untimed pause of 0..cycle ms puts each at a
 * random point of it (about half a tick, ~100 ms, or half a block, ~1 s, to
 * wait, plus the verify and send round trips).
 */
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startDevnet } from '../src/index.js'
import { startFacilitator } from '../src/x402/index.js'

const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const count = Number(option('--count') ?? 30)

const devnet = await startDevnet({ preset: 'base-sepolia', quiet: true })
const publicClient = createPublicClient({ chain: devnet.chain, transport: http(devnet.url) })
const payer = privateKeyToAccount(devnet.accounts[1]!.privateKey)
const scheme = new ExactEvmScheme(toClientEvmSigner(payer, publicClient))
const requirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: devnet.token.address,
  payTo: devnet.accounts[2]!.address,
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
} as const

const facilitators = {
  preconfirmed: await startFacilitator({ rpcUrl: devnet.url, account: devnet.accounts[9]!.privateKey }),
  sealed: await startFacilitator({ rpcUrl: devnet.url, account: devnet.accounts[8]!.privateKey, waitFor: 'sealed' }),
}

async function settleOnce(url: string, route: '/settle' | '/verify' = '/settle') {
  const { payload } = await scheme.createPaymentPayload(2, requirements as never)
  const paymentPayload = { x402Version: 2, accepted: requirements, payload }
  const body = JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements })
  const started = performance.now()
  const response = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const result = (await response.json()) as { success?: boolean; isValid?: boolean; errorReason?: string }
  const ms = performance.now() - started
  if (!(result.success ?? result.isValid)) throw new Error(`${route} failed: ${JSON.stringify(result)}`)
  return ms
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length
  const f = (x: number) => `${x.toFixed(0)} ms`.padStart(8)
  return `mean ${f(mean)}  p50 ${f(quantile(sorted, 0.5))}  p90 ${f(quantile(sorted, 0.9))}  min ${f(sorted[0]!)}  max ${f(sorted.at(-1)!)}`
}

console.log(`x402 settle latency, ${count} payments per mode, preconf 200 ms, block 2000 ms (wall clock)`)
// Warm-up: the first settle of each facilitator reads the token's domain and JIT-compiles the path.
for (const f of Object.values(facilitators)) await settleOnce(f.url)
// For scale: what a settle spends before it waits (the same reads at `pending`, no transaction).
const verifies: number[] = []
for (let i = 0; i < count; i++) verifies.push(await settleOnce(facilitators.preconfirmed.url, '/verify'))
console.log(`verify alone\n  ${'verify'.padEnd(13)} ${summary(verifies)}`)
const cycle = { preconfirmed: 200, sealed: 2000 }
for (const arrival of ['back-to-back', 'random'] as const) {
  console.log(`${arrival === 'random' ? 'random arrival (an untimed pause of 0..cycle ms before each)' : 'back to back (each settle right after the previous answer)'}`)
  for (const [mode, f] of Object.entries(facilitators)) {
    const samples: number[] = []
    for (let i = 0; i < count; i++) {
      if (arrival === 'random')
        await new Promise((resolve) => setTimeout(resolve, Math.random() * cycle[mode as keyof typeof cycle]))
      samples.push(await settleOnce(f.url))
    }
    console.log(`  ${mode.padEnd(13)} ${summary(samples)}`)
  }
}

await Promise.all(Object.values(facilitators).map((f) => f.close()))
await devnet.close()

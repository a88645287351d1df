/**
 * `npx tsx bench/uiIdle.ts`: what the live page costs while no browser has
 * it open. Two devnets over HTTP, one with the page (`ui: true`, its files
 * already served once) and one without (`ui: false`), each runs the same
 * 1,000 pre-confirmation ticks (one transfer each, a seal every 10 ticks)
 * in alternating rounds after one warm-up round each; printed: the node-event listeners each has during
 * the run (what a tick pays for: every listener is called on every tick)
 * and the process CPU time per 1,000 ticks. It asserts nothing.
 */
import { privateKeyToAccount } from 'viem/accounts'
import { type StartedDevnet, startDevnet } from '../src/index.js'

const ticks = Number(process.env.TICKS ?? 1000)
const rounds = Number(process.env.ROUNDS ?? 3)
const eventNames = ['preconf', 'newHead', 'removedBlocks', 'pendingTx', 'droppedPreconf'] as const

async function open(ui: boolean) {
  const devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ui })
  // The page's files are read (from source: built) on the first GET: do it before measuring.
  if (ui) await fetch(devnet.url, { headers: { accept: 'text/html' } }).then((r) => r.text())
  return { devnet, signers: devnet.accounts.slice(0, 4).map((a) => privateKeyToAccount(a.privateKey)), nonces: [0, 0, 0, 0] }
}

async function run({ devnet, signers, nonces }: Awaited<ReturnType<typeof open>>) {
  const rpc = (method: string, ...params: unknown[]) =>
    fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then((r) => r.json())
  const cpu = process.cpuUsage()
  for (let i = 0; i < ticks; i++) {
    const k = i % signers.length
    const raw = await signers[k]!.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: signers[(k + 1) % signers.length]!.address, value: 1n,
      nonce: nonces[k]!++, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
    })
    await rpc('eth_sendRawTransaction', raw)
    await rpc('devnet_preconfirm')
    if (i % 10 === 9) await rpc('devnet_seal')
  }
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / 1000
}

const listeners = (devnet: StartedDevnet) => eventNames.map((e) => `${e}=${devnet.node.events.listenerCount(e)}`).join(' ')

const withPage = await open(true)
const without = await open(false)
const cpu = { withPage: [] as number[], without: [] as number[] }
// One warm-up round each, not counted; then the order alternates, so neither side always runs first.
await run(withPage)
await run(without)
for (let r = 0; r < rounds; r++) {
  if (r % 2 === 0) {
    cpu.withPage.push(await run(withPage))
    cpu.without.push(await run(without))
  } else {
    cpu.without.push(await run(without))
    cpu.withPage.push(await run(withPage))
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`node-event listeners, ui on, no page open: ${listeners(withPage.devnet)}`)
console.log(`node-event listeners, ui off:              ${listeners(without.devnet)}`)
console.log(`CPU per ${ticks} ticks (median of ${rounds}; send + tick each, seal every 10): ui on ${median(cpu.withPage).toFixed(0)} ms [${cpu.withPage.map((x) => x.toFixed(0)).join(', ')}], ui off ${median(cpu.without).toFixed(0)} ms [${cpu.without.map((x) => x.toFixed(0)).join(', ')}]`)
await withPage.devnet.close()
await without.devnet.close()

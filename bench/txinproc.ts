/**
 * The harness' ETH-transfer step in this process, without HTTP: 10 senders,
 * each submitting 50 pre-signed transfers one after another through
 * `devnet.request('eth_sendRawTransaction')` (auto mining: each answers once
 * its block is sealed), senders in parallel. Prints this process's CPU time
 * per transaction and the blocks built, per round: the admission + execution
 * + seal cost with no socket or client sharing the profile, for A/B runs and
 * `--cpu-prof` profiles of the write path.
 *
 *   npx tsx bench/txinproc.ts [--rounds N] [--lone N]   (--lone: also time N send→answer round trips of one client, from two accounts in turn)
 *   node --cpu-prof --import tsx bench/txinproc.ts --rounds 10
 *   npx tsx bench/txinproc.ts --alloc FILE   # bytes allocated per function in the timed parts of the last half of the rounds
 *                                            # (V8's sampling heap profiler, collected objects included), summed into FILE (.json)
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { privateKeyToAccount, mnemonicToAccount } from 'viem/accounts'
import { keccak256, stringToHex, type Hex } from 'viem'
import { createDevnet } from '../src/index.js'

const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const rounds = Number(option('--rounds') ?? 8)
const lone = Number(option('--lone') ?? 0)
const GWEI = 1_000_000_000n
const mnemonic = 'test test test test test test test test test test test junk'
const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }))
const to = (label: string) => `0x${keccak256(stringToHex(label)).slice(26)}` as Hex

const devnet = await createDevnet({ mining: 'auto', quiet: true })
const chainId = Number(await devnet.request({ method: 'eth_chainId' }))
const nonces = new Map<string, number>()
for (const a of accounts) nonces.set(a.address, 0)
const sign = (acct: (typeof accounts)[number], label: string) => {
  const nonce = nonces.get(acct.address)!
  nonces.set(acct.address, nonce + 1)
  return acct.signTransaction({ type: 'eip1559', chainId, nonce, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI, to: to(label), value: GWEI, gas: 21_000n })
}
const send = (raw: Hex) => devnet.request({ method: 'eth_sendRawTransaction', params: [raw] })
const height = async () => Number(await devnet.request({ method: 'eth_blockNumber' }))

const allocFile = option('--alloc')
const session = allocFile ? new Session() : undefined
session?.connect()
type SamplingNode = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: SamplingNode[] }
const allocated = new Map<string, number>()
const frame = (node: SamplingNode) =>
  `${node.callFrame.functionName || '(anon)'} ${node.callFrame.url.replace(/.*node_modules\//, '').replace(/.*wt-[^/]+\//, '')}:${node.callFrame.lineNumber}`
// A function with its two callers (built-ins such as slice or new Uint8Array say nothing alone).
const collect = (node: SamplingNode, callers: string[]) => {
  const key = [frame(node), ...callers.slice(-2).reverse()].join(' <- ')
  allocated.set(key, (allocated.get(key) ?? 0) + node.selfSize)
  for (const child of node.children) collect(child, [...callers, frame(node)])
}

for (let round = 0; round < rounds; round++) {
  const sampling = session !== undefined && round >= rounds / 2
  const lanes = await Promise.all(accounts.map((a, l) => Promise.all(Array.from({ length: 50 }, (_, j) => sign(a, `eth-${round}-${l}-${j}`)))))
  const before = await height()
  if (sampling)
    await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as object)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await Promise.all(lanes.map(async (txs) => { for (const raw of txs) await send(raw) }))
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  if (sampling) collect(((await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } }).profile.head, [])
  console.log(`round ${round}: ${Math.round(500 / (ms / 1000))} tx/s, ${(await height()) - before} blocks, ${((cpu.user + cpu.system) / 1000 / 500).toFixed(3)} ms cpu per tx`)
}
if (allocFile) {
  const sampledTxs = 500 * (rounds - Math.ceil(rounds / 2))
  const rows = [...allocated].sort((a, b) => b[1] - a[1]).map(([fn, bytes]) => ({ fn, bytesPerTx: Math.round(bytes / sampledTxs) }))
  writeFileSync(allocFile, JSON.stringify(rows, null, 1))
  console.log(`allocated per tx: ${rows.reduce((a, r) => a + r.bytesPerTx, 0)} bytes; top:`)
  for (const r of rows.slice(0, 25)) console.log(`  ${String(r.bytesPerTx).padStart(7)} ${r.fn}`)
}
if (lone > 0) {
  // One client at a time, sending from two accounts in turn.
  const keys = [privateKeyToAccount(keccak256(stringToHex('txinproc-lone'))), privateKeyToAccount(keccak256(stringToHex('txinproc-lone-2')))]
  for (const key of keys) await devnet.request({ method: 'anvil_setBalance', params: [key.address, '0x56bc75e2d63100000'] })
  const times: number[] = []
  for (let i = 0; i < lone; i++) {
    const key = keys[i % 2]!
    const raw = await key.signTransaction({ type: 'eip1559', chainId, nonce: i >> 1, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI, to: to(`lone-${i}`), value: 1n, gas: 21_000n })
    const t0 = performance.now()
    await send(raw)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  console.log(`lone send→answer: median ${times[Math.floor(times.length / 2)]!.toFixed(3)} ms, p90 ${times[Math.floor(times.length * 0.9)]!.toFixed(3)} ms`)
}
await devnet.close?.()
process.exit(0)

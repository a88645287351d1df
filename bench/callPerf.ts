/**
 * In-process figures for the read-only call path (eth_call, eth_simulateV1),
 * the same workloads as the shared harness' steps c and g but without HTTP:
 * what is left is the node's own CPU per call, which is what a profile of
 * this script shows (`node --cpu-prof --import tsx bench/callPerf.ts`).
 *
 *   npx tsx bench/callPerf.ts [--seconds 3] [--only call,calld,sim1,sim100,simtrace]
 *
 * `calld` asks balanceOf of a new holder every time (as readpath.ts' calld32): a call the eth_call memo cannot
 * answer, one at a time, so its CPU is the execution path's own.
 */
import { readFileSync } from 'node:fs'
import { encodeDeployData, encodeFunctionData, parseAbi, toHex, type Hex } from 'viem'
import { simulateCasesShort } from './simulateCases.js'
// DEVNET_DIST=1 runs dist/, DEVNET_DIST=/abs/dir/index.js another build (plain tsc output keeps line numbers in profiles).
const distEntry = process.env.DEVNET_DIST === '1' ? '../dist/index.js' : process.env.DEVNET_DIST
const { createDevnet } = (await import(distEntry ?? '../src/index.js')) as typeof import('../src/index.js')

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const seconds = Number(arg('--seconds') ?? 3)
const only = arg('--only')?.split(',')
const wanted = (name: string) => !only || only.includes(name)

const artifact = JSON.parse(readFileSync(new URL('../../shared/bench/contracts/build/BenchToken.json', import.meta.url), 'utf8')) as { bytecode: Hex; abi: unknown[] }
const abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 value)',
])

const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const request = (method: string, params: unknown[]) => devnet.request({ method, params } as never) as Promise<unknown>
const [a0] = devnet.accounts
const deployHash = (await request('eth_sendTransaction', [{ from: a0!.address, data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: ['Bench USD', '2', 'BUSD'] }), gas: toHex(5_000_000) }])) as Hex
await devnet.seal()
const receipt = (await request('eth_getTransactionReceipt', [deployHash])) as { contractAddress: Hex }
const token = receipt.contractAddress
await request('eth_sendTransaction', [{ from: a0!.address, to: token, data: encodeFunctionData({ abi, functionName: 'mint', args: [a0!.address, 10n ** 15n] }) }])
await devnet.seal()

async function loop(name: string, inFlight: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < 50; i++) await fn()
  const latencies: number[] = []
  const end = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now()
      await fn()
      latencies.push(performance.now() - t)
    }
  }
  const start = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(Array.from({ length: inFlight }, worker))
  const elapsed = (performance.now() - start) / 1000
  const used = process.cpuUsage(cpu)
  const cpuPerCall = (used.user + used.system) / 1000 / latencies.length
  latencies.sort((a, b) => a - b)
  const p50 = latencies[Math.floor(latencies.length / 2)]!
  console.log(`${name.padEnd(28)} ${(latencies.length / elapsed).toFixed(0).padStart(7)} req/s   p50 ${p50.toFixed(3)} ms   cpu ${cpuPerCall.toFixed(3)} ms/req   (${latencies.length} in ${elapsed.toFixed(1)} s)`)
}

if (wanted('call')) {
  const data = encodeFunctionData({ abi, functionName: 'balanceOf', args: [a0!.address] })
  const expected = await request('eth_call', [{ to: token, data }, 'latest'])
  if (BigInt(expected as Hex) !== 10n ** 15n) throw new Error(`balanceOf answered ${expected}`)
  // A first untimed second: the JIT's compile work would otherwise land in the first figure.
  await loop('(warm-up) eth_call x1', 1, () => request('eth_call', [{ to: token, data }, 'latest']))
  await loop('eth_call balanceOf x32', 32, () => request('eth_call', [{ to: token, data }, 'latest']))
  if (process.argv.includes('--sweep')) for (const n of [2, 4, 8, 16]) await loop(`eth_call balanceOf x${n}`, n, () => request('eth_call', [{ to: token, data }, 'latest']))
  await loop('eth_call balanceOf x1', 1, () => request('eth_call', [{ to: token, data }, 'latest']))
}

if (wanted('calld')) {
  // balanceOf(address(0x1000000 + n)), spelled out: encoding and hashing an address per request cost the bench a tenth.
  let n = 0x1000000
  const next = () => [{ to: token, data: `0x70a08231${(n++).toString(16).padStart(64, '0')}` }, 'latest']
  await loop('(warm-up) eth_call new holder', 1, () => request('eth_call', next()))
  await loop('eth_call balanceOf new holder x1', 1, () => request('eth_call', next()))
}

const cases: Record<string, unknown[]> = simulateCasesShort(token, 2_000_000_000n)
for (const [name, params] of Object.entries(cases)) {
  if (!wanted(name)) continue
  const first = (await request('eth_simulateV1', params)) as { calls: { status: Hex }[] }[]
  const ok = first[0]!.calls.filter((c) => c.status === '0x1').length
  if (ok !== first[0]!.calls.length) throw new Error(`${name}: ${ok}/${first[0]!.calls.length} ok: ${JSON.stringify(first[0]!.calls[0])}`)
  await loop(`eth_simulateV1 ${name}`, 1, () => request('eth_simulateV1', params))
}
await devnet.close?.()
process.exit(0)

/**
 * CPU per eth_simulateV1 request of two builds of the library, A/B in one
 * process: each build bundles its own @ethereumjs (scripts/engineBundle.mjs),
 * so two devnets of two builds run side by side with their own engine
 * patches, and their requests alternate. On a shared, loaded machine both
 * then see the same load, which separate runs never do; the paired ratio
 * (each B request over the A request just before it) is the figure to read.
 * The payload is the harness' step g (../shared/bench/peers.mjs): 100 token
 * transfers (sim100) or one (sim1) from an overridden sender, or the traced
 * transfer and token transfer under validation (simtrace). `calld` runs
 * instead an eth_call balanceOf of a new holder each time (bench/callPerf.ts'
 * calld: the execution path's own CPU, which the answer memo cannot answer),
 * to check that a change for simulate leaves the shared call path alone.
 *
 *   node scripts/build.mjs --library --outdir .ab/old   # on the old commit (inside the package, ignored by git); then .ab/new
 *   node --single-threaded-gc --import tsx bench/simulateAB.ts .ab/old .ab/new [seconds=20] [sim100|sim1|simtrace|calld]
 *
 * Position bias: the build loaded first runs faster than the second, by
 * ~15 % for two identical copies of one build (.ab/old against a copy of it,
 * sim100, loaded machine; the same directory twice loads one module and shows
 * none). Run both orders, A B then B A: B's change is
 * sqrt(ratio(B/A) / ratio(A/B)).
 *
 * PROFILE=file.cpuprofile also writes a CPU profile of the measured loop (the
 * two builds' frames are told apart by their paths). --single-threaded-gc
 * keeps the GC's helper threads, which spin on a crowded machine, out of the
 * process's CPU time.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { resolve } from 'node:path'
import { type Hex, encodeDeployData, encodeFunctionData, parseAbi, toHex } from 'viem'
import { label, simulateCasesShort } from './simulateCases.js'
const dirs = process.argv.slice(2, 4)
const seconds = Number(process.argv[4] ?? 20)
const caseName = process.argv[5] ?? 'sim100'
const artifact = JSON.parse(readFileSync(new URL('../../shared/bench/contracts/build/BenchToken.json', import.meta.url), 'utf8')) as { bytecode: Hex; abi: unknown[] }
const abi = parseAbi(['function transfer(address to, uint256 value) returns (bool)', 'function balanceOf(address) view returns (uint256)'])
async function setup(dir: string) {
  const { createDevnet } = (await import(`${resolve(dir)}/index.js`)) as typeof import('../src/index.js')
  const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const request = (method: string, params: unknown[]) => devnet.request({ method, params } as never) as Promise<unknown>
  const from = devnet.accounts[0]!.address
  const deploy = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: ['Bench USD', '2', 'BUSD'] })
  const h = (await request('eth_sendTransaction', [{ from, data: deploy, gas: toHex(5_000_000) }])) as Hex
  await devnet.seal()
  const token = ((await request('eth_getTransactionReceipt', [h])) as { contractAddress: Hex }).contractAddress
  const params = simulateCasesShort(token)[caseName === 'simtrace' ? 'simtrace' : caseName === 'sim1' ? 'sim1' : 'sim100']
  let holder = 0
  const balanceOf = () => ({ to: token, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [label(`ab-holder-${holder++}`)] }) })
  const run = caseName === 'calld' ? () => request('eth_call', [balanceOf(), 'latest']) : () => request('eth_simulateV1', params)
  if (caseName !== 'calld') {
    const [b] = (await run()) as { calls: { status: Hex }[] }[]
    if (b!.calls.some((c) => c.status !== '0x1')) throw new Error('failed calls')
  }
  return { run, close: () => devnet.close(), out: JSON.stringify(await run()) }
}
const variants = [] as Awaited<ReturnType<typeof setup>>[]
for (const d of dirs) variants.push(await setup(d))
if (variants[0]!.out !== variants[1]!.out) console.log('WARNING: answers differ')
const t0 = performance.now()
while (performance.now() - t0 < 3000) for (const v of variants) await v.run()
const session = new Session()
const profileOut = process.env.PROFILE
if (profileOut) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start') }
const samples: number[][] = [[], []]
const end = performance.now() + seconds * 1000
while (performance.now() < end) {
  for (let i = 0; i < 2; i++) {
    const c = process.cpuUsage()
    await variants[i]!.run()
    const u = process.cpuUsage(c)
    samples[i]!.push((u.user + u.system) / 1000)
  }
}
if (profileOut) { const { profile } = await session.post('Profiler.stop'); writeFileSync(profileOut, JSON.stringify(profile)) }
const q = (a: number[], f: number) => [...a].sort((x, y) => x - y)[Math.floor(a.length * f)]!
for (let i = 0; i < 2; i++) console.log(`${dirs[i]} n ${samples[i]!.length} p10 ${q(samples[i]!, 0.1).toFixed(2)} p25 ${q(samples[i]!, 0.25).toFixed(2)} med ${q(samples[i]!, 0.5).toFixed(2)}`)
// Paired ratio: each B request against the A request just before it.
const ratios = samples[1]!.map((b, k) => b / samples[0]![k]!)
console.log(`ratio ${dirs[1]}/${dirs[0]} median ${q(ratios, 0.5).toFixed(3)} (p25 ${q(ratios, 0.25).toFixed(3)}, p75 ${q(ratios, 0.75).toFixed(3)})`)
for (const v of variants) await v.close()

/**
 * In-process CPU per eth_simulateV1 request for the shared harness' step g
 * workloads (../shared/bench/peers.mjs stepSimulate: the same token, the same
 * payloads), without HTTP: each case is warmed up first (JIT), then run for
 * `--seconds`, and reported as p50 latency, process CPU per request (user +
 * system, GC and compiler threads included) and the main thread's CPU per
 * request (Linux), the steadier figure to compare on a shared machine.
 * `--profile DIR` also writes a V8 CPU profile of each measured loop, `--heap
 * DIR` a sampling heap profile (where the allocations the GC collects come from).
 *
 * `--cold` measures as the harness does instead: after the transactions and
 * calls of its earlier steps (here 200 token transfers and 1,000 balanceOf
 * calls, which warm the shared paths), no warm-up, the p50 of 30 requests per
 * case: what code first compiled for eth_simulateV1 costs (`--profile DIR`
 * then profiles those 30 requests of each case).
 *
 * `--dump FILE` writes the three answers first (JSON; the same at every run: virtual clock, manual mining), to
 * compare two builds byte for byte; `--interval US` sets the --cold profile's sampling interval.
 *
 *   npx tsx bench/simulatePerf.ts [--seconds 3] [--only sim1,sim100,simtrace] [--profile /tmp/prof] [--heap /tmp/prof] [--cold] [--dump FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { type Hex, encodeDeployData, encodeFunctionData, parseAbi, toHex } from 'viem'
import { label, simulateCasesShort } from './simulateCases.js'

// DEVNET_DIST=/abs/dir/index.js runs another build (plain tsc output keeps line numbers in profiles).
const { createDevnet } = (await import(process.env.DEVNET_DIST ?? '../src/index.js')) as typeof import('../src/index.js')

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const seconds = Number(arg('--seconds') ?? 3)
const only = arg('--only')?.split(',')
const profileDir = arg('--profile')
const heapDir = arg('--heap')
const cold = process.argv.includes('--cold')
const dumpFile = arg('--dump')

const artifact = JSON.parse(readFileSync(new URL('../../shared/bench/contracts/build/BenchToken.json', import.meta.url), 'utf8')) as { bytecode: Hex; abi: unknown[] }
const abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 value)',
  'function balanceOf(address) view returns (uint256)',
])

const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const request = (method: string, params: unknown[]) => devnet.request({ method, params } as never) as Promise<unknown>
const from = devnet.accounts[0]!.address
const deploy = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: ['Bench USD', '2', 'BUSD'] })
const deployHash = (await request('eth_sendTransaction', [{ from, data: deploy, gas: toHex(5_000_000) }])) as Hex
await devnet.seal()
const token = ((await request('eth_getTransactionReceipt', [deployHash])) as { contractAddress: Hex }).contractAddress
if (cold) {
  await request('eth_sendTransaction', [{ from, to: token, data: encodeFunctionData({ abi, functionName: 'mint', args: [from, 10n ** 15n] }) }])
  await devnet.seal()
  for (let i = 0; i < 200; i++) {
    const data = encodeFunctionData({ abi, functionName: 'transfer', args: [label(`warm-${i}`), 1n] })
    await request('eth_sendTransaction', [{ from, to: token, data }])
    if (i % 10 === 9) await devnet.seal()
  }
  const data = encodeFunctionData({ abi, functionName: 'balanceOf', args: [from] })
  for (let i = 0; i < 1000; i++) await request('eth_call', [{ to: token, data }, 'latest'])
}

// The harness' payloads (simulateCases.ts).
const cases: Record<string, unknown[]> = simulateCasesShort(token)

/**
 * CPU time of this (the main) thread in ms, from Linux's schedstat (ns): unlike process.cpuUsage it leaves out the
 * compiler and GC helper threads, whose share varies from run to run on a loaded machine. NaN elsewhere.
 */
const mainThreadMs = () => {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
  } catch {
    return Number.NaN
  }
}

async function loop(fn: () => Promise<unknown>, ms: number, reps = Number.POSITIVE_INFINITY) {
  const latencies: number[] = []
  const end = performance.now() + ms
  const cpu = process.cpuUsage()
  const main = mainThreadMs()
  while (performance.now() < end && latencies.length < reps) {
    const t = performance.now()
    await fn()
    latencies.push(performance.now() - t)
  }
  const used = process.cpuUsage(cpu)
  latencies.sort((a, b) => a - b)
  const mainUsed = mainThreadMs() - main
  return {
    count: latencies.length,
    p50: latencies[Math.floor(latencies.length / 2)]!,
    cpu: (used.user + used.system) / 1000 / latencies.length,
    main: mainUsed / latencies.length,
  }
}

if (dumpFile) {
  // The answers as JSON text (virtual clock, manual mining: the same at every run), to compare two builds byte for byte.
  const answers: Record<string, unknown> = {}
  for (const [name, params] of Object.entries(cases)) answers[name] = await request('eth_simulateV1', params)
  writeFileSync(dumpFile, JSON.stringify(answers, null, 1))
}
const session = new Session()
session.connect()
for (const [name, params] of Object.entries(cases)) {
  if (only && !only.includes(name)) continue
  const [block] = (await request('eth_simulateV1', params)) as { calls: { status: Hex }[] }[]
  const ok = block!.calls.filter((c) => c.status === '0x1').length
  if (ok !== block!.calls.length) throw new Error(`${name}: ${ok}/${block!.calls.length} calls succeeded`)
  const run = () => request('eth_simulateV1', params)
  if (cold) {
    await run()
    if (profileDir) {
      await session.post('Profiler.enable')
      await session.post('Profiler.setSamplingInterval', { interval: Number(arg('--interval') ?? 1000) })
      await session.post('Profiler.start')
    }
    const r = await loop(run, 3000, 30)
    if (profileDir) {
      const { profile } = await session.post('Profiler.stop')
      writeFileSync(`${profileDir}/${name}-cold.cpuprofile`, JSON.stringify(profile))
    }
    console.log(`${name.padEnd(9)} p50 ${r.p50.toFixed(3)} ms   cpu ${r.cpu.toFixed(3)} ms/req   main thread ${r.main.toFixed(3)} ms/req   (first ${r.count} requests, cold)`)
    continue
  }
  await loop(run, 1000)
  if (profileDir) {
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
  }
  // Sampled allocations, all kept (collected ones too): the profile shows where the GC's work comes from.
  if (heapDir) await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  const r = await loop(run, seconds * 1000)
  if (heapDir) {
    const { profile } = await session.post('HeapProfiler.stopSampling')
    writeFileSync(`${heapDir}/${name}.heapprofile`, JSON.stringify(profile))
  }
  if (profileDir) {
    const { profile } = await session.post('Profiler.stop')
    writeFileSync(`${profileDir}/${name}.cpuprofile`, JSON.stringify(profile))
  }
  console.log(`${name.padEnd(9)} p50 ${r.p50.toFixed(3)} ms   cpu ${r.cpu.toFixed(3)} ms/req   main thread ${r.main.toFixed(3)} ms/req   (${r.count} requests)`)
}
session.disconnect()
await devnet.close()

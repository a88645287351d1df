/**
 * Profiling aid: N ERC-20 transfers sent one at a time against `devnet start --mining auto` (a process of its own),
 * each waiting for its receipt (one transaction per sealed block). Prints the node's CPU per transfer (/proc, 10 ms
 * ticks; the main thread's share beside it, and `THREADS=1` prints each thread's). `WARMUP` (20) transfers first; `WARMUP=0` measures a fresh node's first ones. `PIPE=1` awaits each send and
 * polls only for the last receipt, as bench/fork.ts does. `FORK=1` forks a plain devnet process (a fork cache of its own each run). `READS=1` reads an account 101 times first, as bench/fork.ts does. `NODE_OUT=file` keeps the node's stdout. `DEVNET_PROF=dir` runs the node under `--cpu-prof` into dir; `PERF=file` records it with perf (bench/perfSplit.ts). `DEVNET_FROM_SOURCE=1` runs the source.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, openSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signTransfer } from './forkUpstream.js'
import { freePort, post, root, waitUp } from './peerProcess.js'

const n = Number(process.env.N ?? 300)

/** [user, system] CPU ms of a process, from /proc (10 ms ticks). */
function cpuOf(pid: number, thread = false): [number, number] {
  const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return [Number(fields[11]) * 10, Number(fields[12]) * 10]
}

// FORK=1: the node forks a plain devnet (a process of its own, as the upstream) at its genesis.
let upstream: ReturnType<typeof spawn> | undefined
const forkArgs: string[] = []
if (process.env.FORK) {
  const upstreamPort = await freePort()
  upstream = spawn(process.execPath, ['bin/devnet.js', 'start', '--mining', 'auto', '--port', String(upstreamPort)], { cwd: root, stdio: 'ignore' })
  await waitUp(`http://127.0.0.1:${upstreamPort}`)
  // A fork cache of its own: the default one (~/.devnet) is warm from any earlier run of the same upstream (until
  // session 12 every run but the first measured a fork with no upstream read per transfer).
  forkArgs.push('--fork-url', `http://127.0.0.1:${upstreamPort}`, '--fork-cache', mkdtempSync(join(tmpdir(), 'seq-fork-')))
}
const port = await freePort()
const prof = process.env.DEVNET_PROF
const args = [...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []), ...(process.env.PERF ? ['--perf-basic-prof'] : []), ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), 'bin/devnet.js', 'start', '--mining', 'auto', '--port', String(port), ...forkArgs, ...(process.env.DEVNET_ARGS ? process.env.DEVNET_ARGS.split(' ') : [])]
// NODE_OUT=file: the node's stdout there (with NODE_FLAGS=--trace-gc, say).
const child = spawn(process.execPath, args, { cwd: root, stdio: process.env.NODE_OUT ? ['ignore', openSync(process.env.NODE_OUT, 'w'), 'ignore'] : 'ignore' })
const url = new URL(`http://127.0.0.1:${port}`)
await waitUp(url.href)
let id = 0
const call = async (method: string, params: unknown[]) => {
  const body = JSON.parse(await post(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })))
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}
const tokenAddress = '0x3009300930093009300930093009300930093009'
const warmup = Number(process.env.WARMUP ?? 20)
const raws: string[] = []
for (let i = 0; i < n + warmup; i++) raws.push(await signTransfer(tokenAddress, i, i + 1))
// PIPE=1: as bench/fork.ts's row, each send awaited, then one poll for the last receipt.
const pipe = process.env.PIPE === '1'
const waitMined = async (hash: string) => {
  while ((await call('eth_getTransactionReceipt', [hash])) === null) await new Promise((r) => setTimeout(r, 1))
}
const run = async (from: number, to: number) => {
  let hash = ''
  for (let i = from; i < to; i++) {
    hash = await call('eth_sendRawTransaction', [raws[i]])
    if (!pipe) await waitMined(hash)
  }
  if (pipe && hash) await waitMined(hash)
}
// READS=1: as bench/fork.ts, a cold account's balance and 100 cached reads of it first: the engine is loaded before the transfers.
if (process.env.READS === '1') for (let i = 0; i <= 100; i++) await call('eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])
await run(0, warmup)
const [u0, s0] = cpuOf(child.pid!)
/** CPU ms per thread name (THREADS=1). */
const threads = () => {
  const byName = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
    const stat = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8')
    const name = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))} ${tid}`
    const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
    byName.set(name, (byName.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10)
  }
  return byName
}
const threads0 = threads()
// PERF=file: perf record (CPU-clock samples, all threads) of the node over the measured transfers; the node runs with
// --perf-basic-prof so its JS frames are named (bench/perfSplit.ts reads the result).
const perfFile = process.env.PERF
const perf = perfFile ? spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', process.env.PERF_HZ ?? '4999', '-g', '-p', String(child.pid), '-o', perfFile], { stdio: 'ignore' }) : undefined
if (perf) await new Promise((r) => setTimeout(r, 500))
const [mu0, ms0] = cpuOf(child.pid!, true)
const t0 = performance.now()
const h0 = process.hrtime.bigint() / 1000n
await run(warmup, n + warmup)
const h1 = process.hrtime.bigint() / 1000n
const wall = performance.now() - t0
const [u1, s1] = cpuOf(child.pid!)
const [mu1, ms1] = cpuOf(child.pid!, true)
if (perf) await new Promise((r) => perf.once('exit', r).kill('SIGINT'))
const cpu = u1 - u0 + s1 - s0
console.log(`${n} sequential transfers: node CPU ${cpu.toFixed(0)} ms (user ${u1 - u0}, sys ${s1 - s0}; ${(cpu / n).toFixed(2)} ms/transfer; main thread ${mu1 - mu0 + ms1 - ms0} ms), wall ${wall.toFixed(0)} ms (${(wall / n).toFixed(2)} ms/transfer)${prof ? `; window ${h0} ${h1}` : ''}`)
if (process.env.THREADS) for (const [name, ms] of threads()) console.log(`  thread ${name}: ${ms - (threads0.get(name) ?? 0)} ms`)
child.kill('SIGINT')
await new Promise((r) => child.on('exit', r))
if (upstream) {
  upstream.kill('SIGINT')
  await new Promise((r) => upstream.on('exit', r))
}

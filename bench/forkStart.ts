/**
 * `tsx bench/forkStart.ts [--a DIR] [--rounds N]`: the fork start rows of
 * bench/fork.ts (first answer, cold account read, cached read, warm restart +
 * read) taken apart, for A/B runs: a devnet process of this checkout (B) and,
 * with `--a DIR`, of another one (DIR holding bin/ and dist/, e.g. a copy of
 * them made before a change), started in turn against the same in-process
 * upstream, alternating A and B each round. It polls every 2 ms (bench/fork.ts
 * polls every 20), and reports medians of the wall time and of the node
 * process's CPU time at each point (all its threads, from /proc schedstat), plus the HTTP
 * requests that reached the upstream and its minor page faults (/proc/<pid>/stat: the cold start's between its
 * first answer and its read, the warm restart's up to its read). On the bench machine (a Firecracker VM) a fresh
 * page costs ~13-18 µs of CPU, so the fault counts move with the CPU and are steadier than it under load. Figures on a loaded machine are noise:
 * compare medians of alternated rounds, and the CPU columns first. `--prof DIR`
 * writes a V8 CPU profile of each start into DIR (sampled every 100 µs), and
 * DIR/marks.json: each start's pid, variant, cold or warm, and when its
 * eth_chainId and its read were answered (µs of the monotonic clock the
 * profiles use), which `bench/profileSplit.ts DIR` reads to split the time
 * between them by module.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startForkUpstream } from './forkUpstream.js'
import { countingProxy, freePort, p50, root } from './peerProcess.js'
import { threadsCpuMs } from './threadCpu.js'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i < 0 ? undefined : process.argv[i + 1]
}
const rounds = Number(arg('--rounds') ?? 5)
const variants: [string, string][] = [['B (this checkout)', root]]
if (arg('--a')) variants.unshift(['A', arg('--a')!])


/** One JSON-RPC call over a fresh connection; rejects while nothing listens. */
function call(port: number, method: string, params: unknown[] = []) {
  return new Promise<unknown>((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () => {
        const reply = JSON.parse(text) as { result?: unknown; error?: { message: string } }
        if (reply.error) reject(new Error(reply.error.message))
        else resolve(reply.result)
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}


type Start = { chainId: number; chainIdCpu: number; read: number; readCpu: number; second: number; calls: number; chainIdFaults: number; readFaults: number }

/** Minor page faults of `pid` so far (/proc/<pid>/stat, field 10). */
const minorFaults = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7])

/** With --prof: when a profiled start answered (bench/profileSplit.ts), appended to DIR/marks.json. */
function mark(dir: string, entry: { pid: number; variant: string; kind: 'cold' | 'warm'; chainIdAt: number; readAt: number }) {
  const file = join(dir, 'marks.json')
  const marks = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown[]) : []
  writeFileSync(file, JSON.stringify([...marks, entry]))
}

/** µs of the monotonic clock, as V8's CPU profiles time their samples. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

/** Spawns `dir`'s devnet forking `upstream`, polls eth_chainId every 2 ms, then reads a cold account. */
async function start(dir: string, upstream: string, pin: bigint, cacheDir: string, proxy: { take(): number }, cached?: number[]): Promise<Start> {
  const port = await freePort()
  proxy.take()
  const t = performance.now()
  const prof = arg('--prof')
  const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', prof] : []), join(dir, 'bin', 'devnet.js'), 'start', '--quiet', '--mining', 'auto', '--no-ui', '--fork-url', upstream, '--fork-block', String(pin), '--fork-cache', cacheDir, '--port', String(port)], { stdio: 'ignore', cwd: dir })
  for (;;) {
    try {
      await call(port, 'eth_chainId')
      break
    } catch {
      await new Promise((r) => setTimeout(r, 2))
    }
  }
  const chainIdAt = monotonicUs()
  const chainId = performance.now() - t
  const chainIdCpu = threadsCpuMs(child.pid!)
  const chainIdFaults = minorFaults(child.pid!)
  await call(port, 'eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])
  const readAt = monotonicUs()
  const read = performance.now() - t
  if (prof) mark(prof, { pid: child.pid!, variant: dir, kind: cached ? 'cold' : 'warm', chainIdAt, readAt })
  const readCpu = threadsCpuMs(child.pid!)
  const readFaults = minorFaults(child.pid!)
  // Another cold account: the first read's cost without the first time through the code.
  const t2 = performance.now()
  await call(port, 'eth_getBalance', [`0x${'c1'.repeat(20)}`, 'latest'])
  const second = performance.now() - t2
  if (cached)
    for (let i = 0; i < 50; i++) {
      const t1 = performance.now()
      await call(port, 'eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])
      cached.push(performance.now() - t1)
    }
  // Answered by the node only (the front answers account reads while the engine loads): the fork is built, and the
  // reads it made at start are in its cache when it exits, as after the bench row's transfers.
  await call(port, 'eth_blockNumber')
  const calls = proxy.take()
  await new Promise((r) => child.once('exit', r).kill('SIGTERM'))
  return { chainId, chainIdCpu, read, readCpu, second, calls, chainIdFaults, readFaults }
}

async function main() {
  const { remote, pin } = await startForkUpstream()
  const proxy = await countingProxy(remote.url)
  const results = new Map<string, { cold: Start[]; warm: Start[]; cached: number[] }>()
  for (let round = 0; round < rounds; round++)
    for (const [name, dir] of round % 2 ? [...variants].reverse() : variants) {
      const cacheDir = mkdtempSync(join(tmpdir(), 'fork-start-'))
      const r = results.get(name) ?? { cold: [], warm: [], cached: [] }
      results.set(name, r)
      r.cold.push(await start(dir, proxy.url, pin, cacheDir, proxy, r.cached))
      r.warm.push(await start(dir, proxy.url, pin, cacheDir, proxy))
      rmSync(cacheDir, { recursive: true, force: true })
    }
  const ms = (xs: number[]) => `${p50(xs).toFixed(1)}`
  console.log(`fork block ${pin}, ${rounds} rounds, medians (ms); cpu = the node process's user+sys at that point`)
  console.log('| variant | cold: chainId | cpu | +cold read | cpu | 2nd cold read | cached read | calls | warm: chainId | cpu | +read | cpu | calls | cold faults +read | warm faults to read |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, { cold, warm, cached }] of results)
    console.log(
      `| ${name} | ${ms(cold.map((s) => s.chainId))} | ${ms(cold.map((s) => s.chainIdCpu))} | ${ms(cold.map((s) => s.read - s.chainId))} | ${ms(cold.map((s) => s.readCpu - s.chainIdCpu))} | ${p50(cold.map((s) => s.second)).toFixed(2)} | ${p50(cached).toFixed(2)} | ${p50(cold.map((s) => s.calls))} | ${ms(warm.map((s) => s.chainId))} | ${ms(warm.map((s) => s.chainIdCpu))} | ${ms(warm.map((s) => s.read))} | ${ms(warm.map((s) => s.readCpu))} | ${p50(warm.map((s) => s.calls))} | ${p50(cold.map((s) => s.readFaults - s.chainIdFaults))} | ${p50(warm.map((s) => s.readFaults))} |`,
    )
  await proxy.close()
  await remote.close()
}

await main()

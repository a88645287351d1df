/**
 * Profiling aid for the fork row "100 token transfers": the CPU time a
 * forking node spends per token transfer, beside a plain devnet's, both in
 * this process and measured with process.cpuUsage. The transactions are
 * pre-signed and sent through `devnet.request` one after another (no HTTP on
 * the client side, one block each in auto mining), so the figure is the
 * node's own work. The upstream is a devnet process of its own
 * (`bin/devnet.js start`), forked at its head. Each transfer goes to a new
 * recipient: one cold balance slot each, read from the upstream, as in
 * bench/fork.ts (`SAME=1`: 20 recipients read before, no upstream read).
 * Rounds of `N` (default 100) transfers alternate between the fork and the
 * plain node (`ONLY=fork` or `ONLY=plain`: one of them), `ROUNDS` (default 5)
 * each, after `WARMUP` (default 20) transfers on each; `WARMUP=0 ROUNDS=1`
 * measures a fresh node, as bench/fork.ts does. Prints each round's CPU per
 * transfer and the upstream reads it made.
 *
 *   npx tsx bench/forkTxCpu.ts
 *   SRC=.ab-base/src npx tsx bench/forkTxCpu.ts                  # another checkout's src/
 *   ONLY=fork node --cpu-prof --import tsx bench/forkTxCpu.ts   # the window of each round is printed
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { forkSender, signTransfer } from './forkUpstream.js'
import type { StartedDevnet } from '../src/index.js'
import { freePort, root, waitUp } from './peerProcess.js'

// SRC=dir: the devnets run from another checkout's src/ (inside this one, for its node_modules), for A/B runs.
const { startDevnet } = (await import(process.env.SRC ? join(process.cwd(), process.env.SRC, 'index.ts') : '../src/index.js')) as typeof import('../src/index.js')
const n = Number(process.env.N ?? 100)
const rounds = Number(process.env.ROUNDS ?? 5)
const warmup = Number(process.env.WARMUP ?? 20)
const same = process.env.SAME === '1'
const only = process.env.ONLY
const token = '0x3009300930093009300930093009300930093009'

let upstream: ReturnType<typeof spawn> | undefined
const cacheDir = mkdtempSync(join(tmpdir(), 'fork-tx-cpu-'))

type Subject = { name: string; devnet: StartedDevnet; chainId: number; nonce: number; next: number; cpu: number[] }
async function subject(name: string, devnet: StartedDevnet): Promise<Subject> {
  const request = (method: string, params: unknown[]) => devnet.request({ method, params } as never) as Promise<any>
  return { name, devnet, chainId: Number(await request('eth_chainId', [])), nonce: Number(await request('eth_getTransactionCount', [forkSender.address, 'latest'])), next: 1, cpu: [] }
}
const subjects: Subject[] = []
if (only !== 'plain') {
  const port = await freePort()
  upstream = spawn(process.execPath, ['bin/devnet.js', 'start', '--mining', 'auto', '--no-ui', '--port', String(port)], { cwd: root, stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  await waitUp(url)
  subjects.push(await subject('fork', await startDevnet({ mining: 'auto', quiet: true, ui: false, fork: { url, blockNumber: 'latest', cacheDir } })))
}
if (only !== 'fork') subjects.push(await subject('plain', await startDevnet({ mining: 'auto', quiet: true, ui: false })))

const sign = (s: Subject) => signTransfer(token, s.nonce++, same ? (s.next++ % 20) + 1 : s.next++, { chainId: s.chainId })
const send = async (s: Subject, raws: string[]) => {
  const request = (method: string, params: unknown[]) => s.devnet.request({ method, params } as never) as Promise<any>
  let last = ''
  for (const raw of raws) last = await request('eth_sendRawTransaction', [raw])
  while ((await request('eth_getTransactionReceipt', [last])) === null) await new Promise((r) => setTimeout(r, 1))
}
for (const s of subjects) if (warmup > 0) await send(s, await Promise.all(Array.from({ length: warmup }, () => sign(s))))
for (let round = 0; round < rounds; round++)
  for (const s of subjects) {
    const raws = await Promise.all(Array.from({ length: n }, () => sign(s)))
    const stats = s.devnet.node.fork?.remote.stats
    const requests0 = stats?.requests ?? 0
    const http0 = stats?.http ?? 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const h0 = process.hrtime.bigint() / 1000n
    await send(s, raws)
    const h1 = process.hrtime.bigint() / 1000n
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const ms = (cpu.user + cpu.system) / 1000
    s.cpu.push(ms / n)
    console.log(
      `${s.name} round ${round}: ${n} transfers, CPU ${ms.toFixed(0)} ms (${(ms / n).toFixed(2)} ms/transfer), wall ${wall.toFixed(0)} ms` +
        (stats ? `, upstream reads ${stats.requests - requests0} in ${stats.http - http0} HTTP requests` : '') +
        `; profile window ${h0} ${h1}`,
    )
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
for (const s of subjects) console.log(`${s.name}: median ${median(s.cpu).toFixed(2)} ms CPU per transfer over ${rounds} rounds`)
for (const s of subjects) await s.devnet.close()
rmSync(cacheDir, { recursive: true, force: true })
if (upstream) {
  upstream.kill('SIGINT')
  await new Promise((r) => upstream.once('exit', r))
}

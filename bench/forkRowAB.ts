/**
 * A/B of bench/fork.ts's "100 token transfers" row, devnet as a process of its own only: the same upstream (an
 * in-process devnet behind a counting proxy, forked at its head), the CLI of each checkout in `DIRS` (comma list,
 * each with its dist/ built; default this one), alternated for `ROUNDS` (3). Prints per run the wall time (and the part of it the
 * client spent waiting for its answers) and the
 * node process's CPU (/proc, 10 ms ticks; its main thread's from schedstat) of the 100 transfers, sent and answered one by one, then the last
 * receipt polled, as the bench row does; asserts nothing, and wall is noise on a loaded machine.
 *
 * `NODE_FLAGS` go to node before the CLI (e.g. `--cpu-prof --cpu-prof-dir=DIR`; each row then prints its window for
 * bench/profileWindow.ts). `THREADS=1` also prints the CPU of each thread (in creation order) over the row. `BUCKET=10` also prints the main thread's CPU per 10 transfers. `SEGMENTS` (1) rows of 100 run one after another in each process, each printed: the first is the bench's row.
 *
 * A checkout copied elsewhere (bin/ and dist/ only) needs a node_modules beside them (a symlink will do): the
 * bundle loads the native secp256k1 binding from there, and without it recovers senders in pure JS (ethereumjs's
 * fallback), ~2 ms more per transfer, which then looks like a regression of the copy. `DIRS` entries are joined
 * to the working directory, so an absolute path is written relative to it (../../tmp/x).
 *
 *   DIRS=.ab/base,. ROUNDS=4 npx tsx bench/forkRowAB.ts
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { forkSender, signTransfer, startForkUpstream } from './forkUpstream.js'
import { countingProxy, freePort, rpc, waitUp } from './peerProcess.js'
import { mainThreadCpuMs, perThreadCpuMs, statCpuMs } from './threadCpu.js'

const { remote, token, pin } = await startForkUpstream()
const proxy = await countingProxy(remote.url)
const dirs = (process.env.DIRS ?? '.').split(',').map((d) => join(process.cwd(), d))
const cold = `0x${'c0'.repeat(20)}`
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++)
  for (const dir of dirs) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'fork-ab-'))
    const port = await freePort()
    const args = [join(dir, 'bin/devnet.js'), 'start', '--quiet', '--mining', 'auto', '--no-ui', '--fork-url', proxy.url, '--fork-block', String(pin), '--fork-cache', cacheDir, '--port', String(port)]
    const child = spawn(process.execPath, [...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(' ') : []), ...args], { stdio: process.env.CHILD_OUTPUT ? ['ignore', 'inherit', 'inherit'] : 'ignore', cwd: dir })
    const url = `http://127.0.0.1:${port}`
    await waitUp(url, 20)
    // What the bench row does before its transfers: a cold read, then the same read a hundred times.
    for (let i = 0; i <= 100; i++) await rpc(url, 'eth_getBalance', [cold, 'latest'])
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [forkSender.address, 'latest']))
    // SEGMENTS=3: three rows of 100 transfers one after another, printed each (a fresh process's warm-up against later rows).
    for (let segment = 0; segment < Number(process.env.SEGMENTS ?? 1); segment++) {
      // PERF=FILE: `perf record` of every thread of the node over the row (native frames: V8's helper threads).
      const perf = process.env.PERF ? spawn('perf', ['record', '-F', '2000', '-o', `${process.env.PERF}.${round}`, '-p', String(child.pid)], { stdio: 'ignore' }) : undefined
      if (perf) await new Promise((r) => setTimeout(r, 300))
      proxy.take()
      const cpu0 = statCpuMs(child.pid!)
      const threads0 = perThreadCpuMs(child.pid!)
      const main0 = mainThreadCpuMs(child.pid!)
      const t = performance.now()
      const h0 = process.hrtime.bigint() / 1000n
      let last = ''
      // BUCKET=10: the node's main-thread CPU of each 10 transfers too (schedstat read between sends, outside the node).
      const bucket = Number(process.env.BUCKET ?? 0)
      const buckets: string[] = []
      let mark = main0
      // The client's wait for its answers (the node's share of the wall, transport included); the rest is its signing.
      let waited = 0
      for (let i = 0; i < 100; i++) {
        const raw = await signTransfer(token, nonce + segment * 100 + i, segment * 100 + i + 1)
        const sent = performance.now()
        last = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
        waited += performance.now() - sent
        if (bucket > 0 && (i + 1) % bucket === 0) {
          buckets.push((-mark + (mark = mainThreadCpuMs(child.pid!))).toFixed(0))
          if (process.env.NODE_FLAGS) buckets.push(`@${process.hrtime.bigint() / 1000n}`)
        }
      }
      if (bucket > 0) console.log(`  main thread ms per ${bucket} transfers: ${buckets.join(' ')}`)
      while ((await rpc(url, 'eth_getTransactionReceipt', [last])) === null) await new Promise((r) => setTimeout(r, 1))
      const wall = performance.now() - t
      const upstream = proxy.take()
      const cpu = statCpuMs(child.pid!) - cpu0
      const main = mainThreadCpuMs(child.pid!) - main0
      const window = process.env.NODE_FLAGS ? `; window ${h0} ${process.hrtime.bigint() / 1000n}` : ''
      if (perf) await new Promise((r) => perf.once('exit', r).kill('SIGINT'))
      if (process.env.THREADS) {
        // THREADS=1: each thread's CPU over the row, in creation order (thread id minus the process id, and name).
        const rows = [...perThreadCpuMs(child.pid!)].map(([tid, { name, ms }]) => `${Number(tid) - child.pid!}:${name} ${(ms - (threads0.get(tid)?.ms ?? 0)).toFixed(0)}`)
        console.log(`  threads: ${rows.join(', ')}`)
      }
      console.log(`${dir}${segment > 0 ? ` (row ${segment + 1})` : ''}: wall ${wall.toFixed(0)} ms (waiting for answers ${waited.toFixed(0)}), CPU ${cpu} ms (main thread ${main.toFixed(0)} ms), ${upstream} upstream requests, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}${window}`)
    }
    await new Promise((r) => child.once('exit', r).kill('SIGTERM'))
    rmSync(cacheDir, { recursive: true, force: true })
  }
await proxy.close()
await remote.close()

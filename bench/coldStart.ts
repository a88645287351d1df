/**
 * Cold start of the CLI: spawns `node DIR/bin/devnet.js start --mining auto
 * --quiet` for each DIR given (a checkout with its dist/ built; default: this
 * one), alternating, and reports per DIR the main thread's CPU time until
 * the first eth_chainId is answered (read from /proc/<pid>/schedstat, Linux
 * only), which a loaded machine disturbs far less than the wall time, and
 * the wall times to that answer and to an eth_getBalance (the node ready).
 * Polls every millisecond, or every `--poll MS` as the shared harness does
 * (20: its answer then comes at the first poll after the socket listens and
 * the main thread is free, so its wall time moves in steps of ~20 ms);
 * asserts nothing.
 *
 *   npx tsx bench/coldStart.ts [--runs 9] [--poll 1] [DIR ...]
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import net from 'node:net'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 9
const pollAt = args.indexOf('--poll')
const poll = pollAt >= 0 ? Number(args.splice(pollAt, 2)[1]) : 1
const dirs = args.length > 0 ? args : [fileURLToPath(new URL('..', import.meta.url))]

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
const post = (port: number, method: string, params: unknown[] = []) =>
  fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.text())

const results = new Map(dirs.map((dir) => [dir, { cpu: [] as number[], first: [] as number[], ready: [] as number[] }]))
for (let i = 0; i < runs; i++) {
  for (const dir of dirs) {
    const port = await freePort()
    const t0 = performance.now()
    const child = spawn(process.execPath, [`${dir}/bin/devnet.js`, 'start', '--port', String(port), '--mining', 'auto', '--quiet'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    for (;;) {
      try {
        await post(port, 'eth_chainId')
        break
      } catch {
        await new Promise((resolve) => setTimeout(resolve, poll))
      }
    }
    const first = performance.now() - t0
    const cpu = Number(readFileSync(`/proc/${child.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
    await post(port, 'eth_getBalance', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest'])
    const ready = performance.now() - t0
    child.kill('SIGKILL')
    await new Promise((resolve) => child.on('exit', resolve))
    const r = results.get(dir)!
    r.cpu.push(cpu)
    r.first.push(first)
    r.ready.push(ready)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
const ms = (xs: number[]) => `median ${median(xs).toFixed(1)}, min ${Math.min(...xs).toFixed(1)}`
for (const [dir, r] of results)
  console.log(`${dir}\n  main-thread CPU to the first answer: ${ms(r.cpu)} ms\n  wall to the first answer: ${ms(r.first)} ms\n  wall to eth_getBalance: ${ms(r.ready)} ms`)

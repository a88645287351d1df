/**
 * `npx tsx bench/opsCpu.ts [--samples N]`: bench/testOps.ts's state dump
 * and loads on devnet's CLI (this checkout's bin/devnet.js: `npm run build`
 * first), with the CPU the devnet process spent on each (all threads from
 * /proc/<pid>/stat, 10 ms ticks, and its main thread from schedstat) beside
 * the wall time: on a shared machine the wall time of testOps.ts measures
 * the neighbours as much as the dump. The chain is testOps.ts's (10,000
 * blocks, anvil_mine in 100s, a transfer every 100), then N snapshot / seal
 * / revert rounds (20 by default; testOps.ts runs 100), then one dump to a
 * file and three loads of it into the same node. Run it alternating
 * checkouts (A B B A) and compare medians. Asserts nothing.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, root, rpc, waitUp } from './peerProcess.js'
import { mainThreadCpuMs, statCpuMs } from './threadCpu.js'
const samples = Number(process.argv[process.argv.indexOf('--samples') + 1] || 20)
const port = await freePort()
const child = spawn(process.execPath, [join(root, 'bin', 'devnet.js'), 'start', '--quiet', '--mining', 'manual', '--clock', 'virtual', '--allow-fs', '--port', String(port)], { stdio: 'ignore', cwd: root })
const url = `http://127.0.0.1:${port}`
await waitUp(url)
const [a0, a1] = (await rpc(url, 'eth_accounts')) as string[]
for (let done = 0; done < 10_000; done += 100) {
  await rpc(url, 'eth_sendTransaction', [{ from: a0, to: a1, value: '0x1' }])
  await rpc(url, 'anvil_mine', ['0x64'])
}
for (let i = 0; i < samples; i++) {
  const id = await rpc(url, 'evm_snapshot')
  await rpc(url, 'eth_sendTransaction', [{ from: a0, to: a1, value: '0x1' }])
  await rpc(url, 'evm_mine')
  await rpc(url, 'evm_revert', [id])
}
const pid = child.pid!
const measure = async (fn: () => Promise<unknown>) => {
  const c = statCpuMs(pid), m = mainThreadCpuMs(pid), t = performance.now()
  await fn()
  return { wall: performance.now() - t, cpu: statCpuMs(pid) - c, main: mainThreadCpuMs(pid) - m }
}
const dir = mkdtempSync(join(tmpdir(), 'devnet-opscpu-'))
const file = join(dir, 'chain.json')
const f = (x: { wall: number; cpu: number; main: number }) => `wall ${x.wall.toFixed(0)} cpu ${x.cpu.toFixed(0)} main ${x.main.toFixed(0)}`
const dump = await measure(() => rpc(url, 'devnet_dumpFixture', [file]))
const loads = []
for (let i = 0; i < 3; i++) loads.push(await measure(() => rpc(url, 'devnet_loadFixture', [file])))
console.log(`dump: ${f(dump)} | loads: ${loads.map(f).join(' ; ')}`)
child.kill('SIGTERM')
rmSync(dir, { recursive: true, force: true })
process.exit(0)

/**
 * Test-harness latencies beside Anvil's, same machine, same HTTP client:
 * after a chain of N blocks (10,000 by default; a few carry transfers),
 *   - evm_snapshot and evm_revert p50 (each sample: snapshot, seal a block, revert), and evm_revert
 *     p50 after reads only (snapshot, eth_getBalance, revert: a test's afterEach after a read-only test);
 *   - state dump and load: devnet_dumpFixture / devnet_loadFixture against
 *     anvil_dumpState / anvil_loadState (what each offers to start CI from a
 *     prepared chain; Anvil's dump is its state plus block headers).
 *
 *   npx tsx bench/testOps.ts [--blocks N] [--samples N] [--no-anvil]
 *
 * Anvil comes from the shared harness' $PEERS_DIR (bash ../shared/bench/setup.sh);
 * without it, only devnet is measured. Prints a table; asserts nothing.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { anvilBin, anvilCommand, devnetCommand, p50, rpc, timed, withNode } from './peerProcess.js'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const blocks = arg('--blocks', 10_000)
const samples = arg('--samples', 100)

type Figures = { build: number; snapshot: number; revert: number; revertAfterReads: number; dump: number; size: number; load: number }

async function measure(name: string, url: string, kind: 'devnet' | 'anvil'): Promise<Figures> {
  const [a0, a1] = (await rpc(url, 'eth_accounts')) as string[]
  await rpc(url, 'evm_setAutomine', [false])
  const build = await timed(async () => {
    // Mostly empty blocks, with a transfer every 100 blocks so receipts and state move too.
    for (let done = 0; done < blocks; done += 100) {
      await rpc(url, 'eth_sendTransaction', [{ from: a0, to: a1, value: '0x1' }])
      await rpc(url, 'anvil_mine', [`0x${Math.min(100, blocks - done).toString(16)}`])
    }
  })
  const snapshots: number[] = []
  const reverts: number[] = []
  for (let i = 0; i < samples; i++) {
    let id: unknown
    snapshots.push(await timed(async () => (id = await rpc(url, 'evm_snapshot'))))
    await rpc(url, 'eth_sendTransaction', [{ from: a0, to: a1, value: '0x1' }])
    await rpc(url, 'evm_mine')
    reverts.push(await timed(() => rpc(url, 'evm_revert', [id])))
  }
  const revertsAfterReads: number[] = []
  for (let i = 0; i < samples; i++) {
    const id = await rpc(url, 'evm_snapshot')
    await rpc(url, 'eth_getBalance', [a1, 'latest'])
    revertsAfterReads.push(await timed(() => rpc(url, 'evm_revert', [id])))
  }
  const dir = mkdtempSync(join(tmpdir(), 'devnet-testops-'))
  let dump = 0
  let size = 0
  const loads: number[] = []
  if (kind === 'devnet') {
    const file = join(dir, 'chain.json')
    dump = await timed(() => rpc(url, 'devnet_dumpFixture', [file]))
    size = statSync(file).size
    for (let i = 0; i < 3; i++) loads.push(await timed(() => rpc(url, 'devnet_loadFixture', [file])))
  } else {
    let state: unknown
    dump = await timed(async () => (state = await rpc(url, 'anvil_dumpState')))
    size = String(state).length / 2
    try {
      for (let i = 0; i < 3; i++) loads.push(await timed(() => rpc(url, 'anvil_loadState', [state])))
    } catch (error) {
      // Anvil refuses a large state over HTTP ("Invalid request": its request size limit); say so instead of a figure.
      console.error(`${name}: anvil_loadState failed: ${(error as Error).message}`)
      loads.push(Number.NaN)
    }
  }
  rmSync(dir, { recursive: true, force: true })
  console.error(`${name}: done`)
  return { build, snapshot: p50(snapshots), revert: p50(reverts), revertAfterReads: p50(revertsAfterReads), dump, size, load: p50(loads) }
}

const results: [string, Figures][] = []
results.push(['devnet', await withNode(devnetCommand('--mining', 'manual', '--clock', 'virtual', '--allow-fs'), (url) => measure('devnet', url, 'devnet'))])
if (!process.argv.includes('--no-anvil') && existsSync(anvilBin))
  results.push(['anvil', await withNode(anvilCommand(), (url) => measure('anvil', url, 'anvil'))])
else console.error(`bench: no Anvil at ${anvilBin} (bash ../shared/bench/setup.sh); devnet only`)

const ms = (x: number) => (Number.isNaN(x) ? 'failed' : x < 10 ? x.toFixed(2) : x.toFixed(0))
const rows: [string, string, (f: Figures) => string][] = [
  [`build ${blocks} blocks (anvil_mine in 100s, a transfer every 100)`, 's', (f) => (f.build / 1000).toFixed(1)],
  [`evm_snapshot p50 after ${blocks} blocks`, 'ms', (f) => ms(f.snapshot)],
  [`evm_revert p50 after ${blocks} blocks (one block sealed since)`, 'ms', (f) => ms(f.revert)],
  [`evm_revert p50 after ${blocks} blocks (reads only since)`, 'ms', (f) => ms(f.revertAfterReads)],
  ['state dump (devnet_dumpFixture to a file / anvil_dumpState over RPC)', 'ms', (f) => ms(f.dump)],
  ['dump size', 'KiB', (f) => (f.size / 1024).toFixed(0)],
  ['state load p50 (devnet_loadFixture / anvil_loadState)', 'ms', (f) => ms(f.load)],
]
console.log(`| measurement | unit | ${results.map(([n]) => n).join(' | ')} |`)
console.log(`|---|---|${results.map(() => '---:').join('|')}|`)
for (const [label, unit, get] of rows) console.log(`| ${label} | ${unit} | ${results.map(([, f]) => get(f)).join(' | ')} |`)
process.exit(0)

/**
 * `npx tsx bench/dumpFirst.ts [dumps]`: the first fixture dumps of a fresh
 * process, on the chain of bench/testOps.ts (10,000 blocks, a transfer every
 * 100) built in-process: CPU time, minor page faults and wall time of each
 * dump to a file, and the file's sha256 (equal across runs and versions when
 * the output is unchanged). Run it several times, alternating versions: the
 * first dump pays for compiling and for fresh memory. Full collections (mark-compact) during a dump
 * are counted with their main-thread pause. Asserts nothing.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PerformanceObserver, constants } from 'node:perf_hooks'
import { createDevnet } from '../src/index.js'

const dumps = Number(process.argv[2] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'devnet-dump-first-'))
const source = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const [a, b] = source.accounts
for (let done = 0; done < 10_000; done += 100) {
  await source.request({ method: 'eth_sendTransaction', params: [{ from: a!.address, to: b!.address, value: '0x1' }] })
  await source.request({ method: 'anvil_mine', params: ['0x64'] })
}
const file = join(dir, 'dump.json')
// Full collections (mark-compact) during each dump: their pause on the main thread, as Node reports them.
let majors = 0
let majorMs = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (((entry as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      majors++
      majorMs += entry.duration
    }
}).observe({ entryTypes: ['gc'] })
await new Promise((resolve) => setImmediate(resolve))
for (let i = 0; i < dumps; i++) {
  majors = 0
  majorMs = 0
  const faults = process.resourceUsage().minorPageFault
  const used = process.cpuUsage()
  const start = performance.now()
  await source.node.dumpFixtureToFile(file)
  const wall = performance.now() - start
  const { user, system } = process.cpuUsage(used)
  await new Promise((resolve) => setImmediate(resolve))
  const sha = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16)
  console.log(
    `dump ${i + 1}: CPU ${((user + system) / 1000).toFixed(0)} ms (user ${(user / 1000).toFixed(0)}, sys ${(system / 1000).toFixed(0)}), ` +
      `minor faults ${process.resourceUsage().minorPageFault - faults}, wall ${wall.toFixed(0)} ms, full GCs ${majors} (${majorMs.toFixed(0)} ms), sha256 ${sha}`,
  )
}
await source.close()
rmSync(dir, { recursive: true, force: true })

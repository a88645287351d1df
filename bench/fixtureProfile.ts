/**
 * `npx tsx bench/fixtureProfile.ts FILE [dump|load] [runs]`: CPU profile of
 * fixture loads of FILE (read + parse + load into a fresh devnet) or dumps
 * (of the chain of bench/testOps.ts, built first, to a temporary file), taken with the
 * inspector around the operation only, and printed as self time per
 * function and per file (top 25 each), summed over `runs`. Prints the CPU
 * time of each run too. Asserts nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDevnet } from '../src/index.js'
import { readFixtureFile } from '../src/node/fixture/file.js'

const [file, what = 'load', runsArg = '5'] = process.argv.slice(2)
if (!file) throw new Error('usage: bench/fixtureProfile.ts FILE|- [dump|load] [runs]')
const runs = Number(runsArg)
const options = { mining: 'manual', clock: 'virtual', quiet: true } as const
const dir = mkdtempSync(join(tmpdir(), 'devnet-fixture-profile-'))
const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.setSamplingInterval', { interval: 200 })

type Node = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  positionTicks?: { line: number; ticks: number }[]
}
const self = new Map<string, number>()
/** Self time per source line (generated code's lines: run the tsc output for lines that match the source). */
const lines = new Map<string, number>()
const byFile = new Map<string, number>()
let total = 0

async function profiled(fn: () => Promise<unknown>) {
  await session.post('Profiler.start')
  const used = process.cpuUsage()
  const start = performance.now()
  await fn()
  const wall = performance.now() - start
  const { user, system } = process.cpuUsage(used)
  const { profile } = await session.post('Profiler.stop')
  const nodes = new Map<number, Node>(profile.nodes.map((n: Node) => [n.id, n]))
  const counts = new Map<number, number>()
  for (const id of profile.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1)
  const deltas = profile.timeDeltas ?? []
  const per = deltas.reduce((a: number, b: number) => a + b, 0) / Math.max(1, deltas.length) / 1000
  for (const [id, count] of counts) {
    const n = nodes.get(id)!
    const f = n.callFrame
    const where = f.url.replace(/^.*\/(src|node_modules)\//, '$1/')
    const name = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`
    self.set(name, (self.get(name) ?? 0) + count * per)
    byFile.set(where || f.functionName, (byFile.get(where || f.functionName) ?? 0) + count * per)
    total += count * per
    for (const { line, ticks } of n.positionTicks ?? []) lines.set(`${where}:${line}`, (lines.get(`${where}:${line}`) ?? 0) + ticks * per)
  }
  console.log(`${what}: wall ${wall.toFixed(0)} ms, CPU ${((user + system) / 1000).toFixed(0)} ms`)
}

if (what === 'load') {
  for (let i = 0; i < runs; i++) {
    const target = await createDevnet(options)
    await profiled(async () => target.node.loadFixture((await readFixtureFile(file)).fixture))
    await target.close()
  }
} else {
  // The chain of bench/testOps.ts, built here (a devnet started from a file would write its blocks' bytes as loaded).
  const source = await createDevnet(options)
  const [a, b] = source.accounts
  for (let done = 0; done < 10_000; done += 100) {
    await source.request({ method: 'eth_sendTransaction', params: [{ from: a!.address, to: b!.address, value: '0x1' }] })
    await source.request({ method: 'anvil_mine', params: ['0x64'] })
  }
  for (let i = 0; i < runs; i++) await profiled(() => source.node.dumpFixtureToFile(join(dir, 'dump.json')))
  await source.close()
}
const top = (m: Map<string, number>) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / runs).toFixed(1).padStart(7)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n')
console.log(`\nself time per run, by function:\n${top(self)}\n\nby file:\n${top(byFile)}\n\nby line:\n${top(lines)}`)
if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify([...self]))
rmSync(dir, { recursive: true, force: true })

/**
 * `npx tsx bench/dumpFirst.ts [dumps]`: the first fixture dumps of a fresh
 * process, on the chain of bench/testOps.ts (10,000 blocks, a transfer every
 * 100) built in-process: CPU time, minor page faults and wall time of each
 * dump to a file, and the file's sha256 (equal across runs and versions when
 * the output is unchanged). Run it several times, alternating versions: the
 * first dump pays for compiling and for fresh memory. Asserts nothing.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
for (let i = 0; i < dumps; i++) {
  const faults = process.resourceUsage().minorPageFault
  const used = process.cpuUsage()
  const start = performance.now()
  await source.node.dumpFixtureToFile(file)
  const wall = performance.now() - start
  const { user, system } = process.cpuUsage(used)
  const sha = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16)
  console.log(
    `dump ${i + 1}: CPU ${((user + system) / 1000).toFixed(0)} ms (user ${(user / 1000).toFixed(0)}, sys ${(system / 1000).toFixed(0)}), ` +
      `minor faults ${process.resourceUsage().minorPageFault - faults}, wall ${wall.toFixed(0)} ms, sha256 ${sha}`,
  )
}
await source.close()
rmSync(dir, { recursive: true, force: true })

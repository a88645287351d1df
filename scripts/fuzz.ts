/**
 * `npm run fuzz -- --cases N --seed S`: the malformed-input run of
 * test/fuzz/malformed.test.ts, longer, against a devnet started here.
 * Prints the seed, the counts and every finding; exits 1 on any finding.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startDevnet } from '../src/index.js'
import { allMethods } from '../src/rpc/registry.js'
import { runFuzz } from '../test/fuzz/drive.js'

const { values } = parseArgs({
  options: { cases: { type: 'string' }, seed: { type: 'string' }, burst: { type: 'string' } },
})
const seed = Number(values.seed ?? process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const cases = Number(values.cases ?? process.env.FUZZ_CASES ?? 100_000)
const bodyLimit = 1024 * 1024
const dir = mkdtempSync(join(tmpdir(), 'devnet-fuzz-'))
console.log(`fuzz: seed ${seed}, ${cases} cases (FUZZ_SEED=${seed} FUZZ_CASES=${cases} reproduces)`)
const devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, bodyLimit, fixturesDir: dir })
try {
  const report = await runFuzz({
    url: devnet.url,
    wsUrl: devnet.wsUrl,
    seed,
    cases,
    methods: allMethods.map((m) => m.method),
    bodyLimit,
    burst: Number(values.burst ?? 200),
    onBurst: (done) => {
      if (done % 5000 === 0 || process.env.FUZZ_VERBOSE) console.log(`  ${done} cases`)
    },
  })
  for (const f of report.findings) console.log(`#${f.index} ${f.transport} ${f.kind}: ${f.label}: ${f.problem}\n  sent ${f.sent}\n  got  ${f.reply}`)
  console.log(`fuzz: seed ${seed}: ${report.cases} cases (${report.http} HTTP, ${report.ws} WebSocket) in ${(report.elapsedMs / 1000).toFixed(1)} s (${(report.cpuMs / 1000).toFixed(1)} s CPU): ${JSON.stringify(report.counts)}`)
  process.exitCode = report.findings.length > 0 ? 1 : 0
} finally {
  await devnet.close()
  rmSync(dir, { recursive: true, force: true })
}

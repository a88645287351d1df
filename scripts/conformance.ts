/**
 * `npm run conformance`: imports the execution-apis chain into one devnet, replays
 * every `.io` case in file-name order, prints `<method>  passed/total` per method
 * and a last line `N passed, N failed`, and writes `reports/conformance.json`.
 *
 * Exits 1 on a failure not listed in `conformance/expected-failures.json`, on a
 * listed failure that now passes, or on a listed case that does not exist; exits 0
 * (with a note) when the corpus (test/data/execution-apis, vendored) is absent.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type CaseResult,
  corpusPresent,
  corpusRoot,
  judge,
  listCases,
  loadCase,
  loadExpectedFailures,
  loadSpec,
  projectRoot,
  report,
  runCase,
  startCorpusDevnet,
} from '../test/conformance/replay.js'

async function main(): Promise<number> {
  if (!corpusPresent()) {
    console.log(`conformance: skipped, ${corpusRoot} is absent`)
    return 0
  }
  const expected = loadExpectedFailures()
  const spec = loadSpec()
  const cases = listCases().map((name) => loadCase(name))

  const started = performance.now()
  const devnet = await startCorpusDevnet()
  const importMs = Math.round(performance.now() - started)
  const results: CaseResult[] = []
  try {
    for (const testCase of cases) results.push(await runCase(devnet, testCase, spec))
  } finally {
    await devnet.close()
  }

  const verdict = judge(results, expected)
  const width = Math.max(...verdict.methods.map(({ method }) => method.length))
  for (const { method, passed, total } of verdict.methods) console.log(`${method.padEnd(width)}  ${passed}/${total}`)

  const reportPath = join(projectRoot, 'reports', 'conformance.json')
  mkdirSync(join(projectRoot, 'reports'), { recursive: true })
  writeFileSync(reportPath, `${JSON.stringify({ importMs, ...report(results, expected) }, null, 2)}\n`)

  console.log()
  for (const { name, failure } of verdict.unexpectedFailures) console.log(`FAIL ${name} (not an expected failure)\n${failure}\n`)
  for (const { name } of verdict.unexpectedPasses)
    console.log(`PASS ${name}: listed as an expected failure, now passes; remove it from conformance/expected-failures.json`)
  for (const name of verdict.unknownEntries)
    console.log(`conformance/expected-failures.json lists ${name}, which is not in the corpus`)
  const expectedCount = results.filter(({ name, passed }) => !passed && name in expected).length
  console.log(
    `chain import ${importMs} ms; ${expectedCount} expected failures; report: ${reportPath.slice(projectRoot.length)}`,
  )
  console.log(`${verdict.passed} passed, ${verdict.failed} failed`)
  const ok =
    verdict.unexpectedFailures.length === 0 && verdict.unexpectedPasses.length === 0 && verdict.unknownEntries.length === 0
  return ok ? 0 : 1
}

main().then(
  (code) => {
    process.exitCode = code
    // should a handle outlive devnet.close(), do not hang CI; unref'd, so a clean exit is not delayed
    setTimeout(() => process.exit(code), 2_000).unref()
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error)
    process.exitCode = 1
  },
)

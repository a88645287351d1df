/**
 * Replay of the execution-apis `.io` corpus against one devnet that imported the
 * corpus chain: shared by `scripts/conformance.ts` and `execution-apis.test.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { compareResponse, formatMismatches, type IoCase, parseIo, resultSchemaOf } from './io.js'

/** The project root (this file sits in `test/conformance/`). */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
/** The corpus, vendored in test/data (CC0, see its SOURCE.md); `../shared` beside the project is only a fallback. */
export const corpusRoot = [join(projectRoot, 'test', 'data', 'execution-apis'), join(projectRoot, '..', 'shared', 'conformance', 'execution-apis')].find(
  (root) => existsSync(join(root, 'chain.rlp')),
) ?? join(projectRoot, 'test', 'data', 'execution-apis')
/** Known failures: `{ "<method>/<file>.io": "reason" }`. */
export const expectedFailuresPath = join(projectRoot, 'conformance', 'expected-failures.json')

/** Whether the corpus is present (it is in CI). */
export function corpusPresent(root = corpusRoot): boolean {
  return existsSync(join(root, 'chain.rlp')) && existsSync(join(root, 'genesis.json'))
}

/**
 * The `.io` files under `root` as `<method>/<file>.io`, sorted by full relative
 * path like the public harness: the cases share one node, and order matters
 * (`eth_sendRawTransaction` fills the pool the `txpool_*` cases read).
 */
export function listCases(root = corpusRoot): string[] {
  const files: string[] = []
  for (const dir of readdirSync(root)) {
    if (!statSync(join(root, dir)).isDirectory()) continue
    for (const file of readdirSync(join(root, dir))) if (file.endsWith('.io')) files.push(`${dir}/${file}`)
  }
  // plain code-unit order, as Go's sort of path strings, not localeCompare
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Reads and parses one case. */
export function loadCase(name: string, root = corpusRoot): IoCase {
  return parseIo(readFileSync(join(root, name), 'utf8'), name)
}

/** Reads `spec/openrpc.json` of the corpus. */
export function loadSpec(root = corpusRoot): unknown {
  return JSON.parse(readFileSync(join(root, 'spec', 'openrpc.json'), 'utf8'))
}

/** Reads the expected failures; a missing file means none. */
export function loadExpectedFailures(path = expectedFailuresPath): Record<string, string> {
  if (!existsSync(path)) return {}
  const json: unknown = JSON.parse(readFileSync(path, 'utf8'))
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`${path}: expected an object`)
  for (const [name, reason] of Object.entries(json))
    if (typeof reason !== 'string' || reason === '') throw new Error(`${path}: "${name}": reason must be a non-empty string`)
  return json as Record<string, string>
}

/** What the replay needs of a devnet: raw JSON-RPC in, whole response out. */
export type RawRpc = {
  requestRaw(payload: unknown): Promise<unknown>
  close(): Promise<void>
}

/**
 * Starts a devnet on the corpus chain: genesis, the 54 blocks of `chain.rlp`, and
 * `headfcu.json` as head/safe/finalized; no mining, virtual clock, so nothing
 * moves between cases.
 */
export async function startCorpusDevnet(root = corpusRoot): Promise<RawRpc> {
  // Loaded by URL so this module type-checks and the unit tests run before the
  // node's entry point exists.
  const entry = pathToFileURL(join(projectRoot, 'src', 'index.ts')).href
  const module = (await import(entry)) as { createDevnet?: (options: unknown) => Promise<RawRpc> }
  if (typeof module.createDevnet !== 'function') throw new Error('src/index.ts does not export createDevnet')
  return module.createDevnet({
    genesis: join(root, 'genesis.json'),
    import: join(root, 'chain.rlp'),
    forkchoice: join(root, 'headfcu.json'),
    mining: { type: 'manual' },
    clock: 'virtual',
  })
}

/** The outcome of one case. */
export type CaseResult = {
  /** `<method>/<file>.io` */
  name: string
  method: string
  passed: boolean
  /** Why it failed: the first mismatches, or the error thrown. */
  failure?: string | undefined
  speconly: boolean
  ms: number
}

/** A response that never comes must not stall the whole replay. */
const exchangeTimeoutMs = 30_000

/**
 * Runs one case: sends each request in order and compares each response with the
 * recorded one ({@link compareResponse}); stops at the first differing exchange.
 */
export async function runCase(rpc: RawRpc, testCase: IoCase, spec: unknown): Promise<CaseResult> {
  const started = performance.now()
  const method = testCase.name.split('/')[0]!
  const result = (passed: boolean, failure?: string): CaseResult => ({
    name: testCase.name,
    method,
    passed,
    failure,
    speconly: testCase.speconly,
    ms: Math.round(performance.now() - started),
  })
  for (const [i, { request, response, line }] of testCase.exchanges.entries()) {
    const where = testCase.exchanges.length > 1 ? ` (exchange ${i + 1}, line ${line})` : ''
    let got: unknown
    try {
      got = await withTimeout(rpc.requestRaw(request), exchangeTimeoutMs)
    } catch (error) {
      return result(false, `request threw${where}: ${error instanceof Error ? error.message : String(error)}`)
    }
    const requestMethod = (request as { method?: unknown }).method
    const mismatches = compareResponse(got, response, {
      resultSchema: testCase.speconly
        ? { schema: resultSchemaOf(spec, typeof requestMethod === 'string' ? requestMethod : method), spec }
        : undefined,
    })
    if (mismatches.length > 0) return result(false, `response differs${where}:\n${formatMismatches(mismatches)}`)
  }
  return result(true)
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no response within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** How a run compares with the expected failures. */
export type Verdict = {
  passed: number
  failed: number
  /** Failed and not listed: regressions. */
  unexpectedFailures: CaseResult[]
  /** Listed but passing now: shrink the list. */
  unexpectedPasses: CaseResult[]
  /** Listed but not in the corpus: typos or removed cases. */
  unknownEntries: string[]
  /** Per method, in corpus order. */
  methods: { method: string; passed: number; total: number }[]
}

/** Judges results against the expected failures: a run is good when all three lists are empty. */
export function judge(results: readonly CaseResult[], expected: Record<string, string>): Verdict {
  const methods = new Map<string, { method: string; passed: number; total: number }>()
  for (const { method, passed } of results) {
    const entry = methods.get(method) ?? { method, passed: 0, total: 0 }
    entry.total++
    if (passed) entry.passed++
    methods.set(method, entry)
  }
  const names = new Set(results.map(({ name }) => name))
  return {
    passed: results.filter(({ passed }) => passed).length,
    failed: results.filter(({ passed }) => !passed).length,
    unexpectedFailures: results.filter(({ name, passed }) => !passed && !(name in expected)),
    unexpectedPasses: results.filter(({ name, passed }) => passed && name in expected),
    unknownEntries: Object.keys(expected).filter((name) => !names.has(name)),
    methods: [...methods.values()],
  }
}

/** The JSON report written to `reports/conformance.json`. */
export function report(results: readonly CaseResult[], expected: Record<string, string>) {
  const verdict = judge(results, expected)
  return {
    corpus: 'ethereum/execution-apis tests (see test/data/execution-apis/SOURCE.md)',
    passed: verdict.passed,
    failed: verdict.failed,
    ok: verdict.unexpectedFailures.length === 0 && verdict.unexpectedPasses.length === 0 && verdict.unknownEntries.length === 0,
    unexpectedFailures: verdict.unexpectedFailures.map(({ name }) => name),
    unexpectedPasses: verdict.unexpectedPasses.map(({ name }) => name),
    unknownExpectedFailures: verdict.unknownEntries,
    methods: Object.fromEntries(verdict.methods.map(({ method, passed, total }) => [method, { passed, total }])),
    cases: results.map((result) => ({ ...result, expectedFailure: expected[result.name] })),
  }
}

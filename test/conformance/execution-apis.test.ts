import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  corpusPresent,
  corpusRoot,
  listCases,
  loadCase,
  loadExpectedFailures,
  loadSpec,
  type RawRpc,
  runCase,
  startCorpusDevnet,
} from './replay.js'

// The same replay as `npm run conformance`: one devnet, every case in file-name
// order (later cases depend on earlier ones), one test per file. A case listed in
// conformance/expected-failures.json must fail; once it passes, its test fails
// until the entry is removed.
const present = corpusPresent()
if (!present) console.warn(`skipping execution-apis conformance: ${corpusRoot} is absent`)

const cases = present ? listCases() : []
const methods = [...new Set(cases.map((name) => name.split('/')[0]!))]
const expected = present ? loadExpectedFailures() : {}

describe.skipIf(!present)(`execution-apis conformance${present ? '' : ' (skipped: corpus absent)'}`, () => {
  let devnet: RawRpc | undefined
  let spec: unknown

  beforeAll(async () => {
    spec = loadSpec()
    devnet = await startCorpusDevnet()
  })

  afterAll(async () => {
    await devnet?.close()
  })

  for (const method of methods) {
    describe(method, () => {
      for (const name of cases.filter((name) => name.startsWith(`${method}/`))) {
        const reason = expected[name]
        const title = reason === undefined ? name.slice(method.length + 1) : `${name.slice(method.length + 1)} (expected failure: ${reason})`
        test(title, async () => {
          if (devnet === undefined) throw new Error('devnet did not start')
          const result = await runCase(devnet, loadCase(name), spec)
          if (reason === undefined) {
            if (!result.passed) throw new Error(`${name}: ${result.failure}`)
          } else if (result.passed) {
            throw new Error(`${name} now passes: remove it from conformance/expected-failures.json`)
          }
        })
      }
    })
  }

  test('expected-failures.json lists only cases of the corpus', () => {
    expect(Object.keys(expected).filter((name) => !cases.includes(name))).toEqual([])
  })
})

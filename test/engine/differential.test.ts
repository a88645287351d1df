import { describe, expect, it } from 'vitest'
import { engineModeOf } from '../../src/evm/patches/registry.js'
import { describeDifference, firstDifference, transcriptOf } from './differential/compare.js'
import { type Transcript, hardforkOf } from './differential/scenario.js'

/*
 * The differential suite: the same inputs (differential/scenario.ts: random
 * programs and transactions of every type from a seed, then the payment
 * token's flows) through devnet's engine and through stock @ethereumjs
 * (DEVNET_ENGINE=stock), each in its own process, and the transcripts
 * (blocks and their roots, receipts, logs, gas, return data, struct-logger
 * traces, eth_call, eth_estimateGas and eth_simulateV1 answers) must be
 * identical.
 *
 * A run takes a fresh seed unless DIFF_SEED is set, and prints it; a
 * divergence names the entry and the command that replays it.
 * `npm run diff:long` runs many more cases. The geth chain's recorded state
 * roots are checked under both engines by test/conformance/import.test.ts,
 * which `npm test` also runs with DEVNET_ENGINE=stock.
 */
const seed = process.env.DIFF_SEED !== undefined ? Number(process.env.DIFF_SEED) : Math.floor(Math.random() * 2 ** 31)
const cases = process.env.DIFF_CASES !== undefined ? Number(process.env.DIFF_CASES) : 24
// The pass of `npm test` under DEVNET_ENGINE=stock would run the same comparison again: once is enough.
const stockPass = engineModeOf() === 'stock'

describe.skipIf(stockPass)('devnet engine against stock @ethereumjs', () => {
  it(`computes the same chain, receipts and traces (seed ${seed}, ${cases} cases)`, { timeout: 120_000 + cases * 5_000 }, async () => {
    console.log(`differential: seed ${seed} (${hardforkOf(seed)}), ${cases} cases; replay with DIFF_SEED=${seed} DIFF_CASES=${cases}`)
    const [devnet, stock] = await Promise.all([transcriptOf('devnet', seed, cases), transcriptOf('stock', seed, cases)])
    expect(devnet.engine).toBe('devnet')
    expect(stock.engine).toBe('stock')
    const difference = firstDifference(devnet, stock)
    if (difference) expect.fail(describeDifference(difference, seed, cases))
    expectCoverage(devnet)
  })

  it('the comparison finds a changed receipt, and a changed trace step by its index', () => {
    const transcript: Transcript = {
      seed: 1, cases: 1, engine: 'devnet', hardfork: 'osaka',
      entries: [
        { label: 'a: receipt', receipt: { status: '0x1', gasUsed: '0x5208', logs: [] } },
        { label: 'a: trace', trace: { gas: 1, failed: false, returnValue: '', steps: 3, stepHashes: 'aaaaaaaabbbbbbbbcccccccc' } },
      ],
    }
    const changed = structuredClone(transcript)
    ;(changed.entries[0]!.receipt as { gasUsed: string }).gasUsed = '0x5209'
    expect(firstDifference(transcript, changed)).toMatchObject({ index: 0, label: 'a: receipt', path: '.receipt.gasUsed', devnet: '0x5208', stock: '0x5209' })
    const traced = structuredClone(transcript)
    ;(traced.entries[1]!.trace as { stepHashes: string }).stepHashes = 'aaaaaaaabbbbbbbbdddddddd'
    expect(firstDifference(transcript, traced)?.note).toMatch(/first different struct-log step: 2/)
    expect(firstDifference(transcript, structuredClone(transcript))).toBeUndefined()
  })
})

/**
 * The inputs did what they are for: every transaction type, successes and failures, logs, creations, deep traces
 * (the token's flows alone give the last four whatever the seed).
 */
function expectCoverage(t: Transcript) {
  const receipts = t.entries.filter((e) => e.receipt).map((e) => e.receipt as { status: string; type: string; logs: unknown[]; contractAddress: string | null })
  // Cancun has no EIP-7702 transactions. The first seven cases take each kind of transaction once.
  if (t.cases >= 7) expect(new Set(receipts.map((r) => r.type))).toEqual(new Set(['0x0', '0x1', '0x2', '0x3', ...(t.hardfork === 'cancun' ? [] : ['0x4'])]))
  expect(receipts.some((r) => r.status === '0x1')).toBe(true)
  expect(receipts.some((r) => r.status === '0x0')).toBe(true)
  expect(receipts.some((r) => r.logs.length > 0)).toBe(true)
  expect(receipts.some((r) => r.contractAddress)).toBe(true)
  const traces = t.entries.filter((e) => e.trace).map((e) => e.trace as { steps?: number })
  expect(traces.some((tr) => (tr.steps ?? 0) > 200)).toBe(true)
  // eth_simulateV1 answered with blocks whose calls succeeded, failed and logged (the token's simulation alone does).
  const simulated = t.entries
    .filter((e) => e.label.endsWith('eth_simulateV1'))
    .flatMap((e) => (e.answer as { result?: { calls: { status: string; logs: unknown[] }[] }[] }).result ?? [])
    .flatMap((block) => block.calls)
  expect(simulated.some((c) => c.status === '0x1' && c.logs.length > 0)).toBe(true)
  expect(simulated.some((c) => c.status === '0x0')).toBe(true)
  // The ordered traceTransfers case: transfer, log, transfer, child's log, log, self-destruct payout (T/L by emitter).
  const traced = t.entries.find((e) => e.label.startsWith('trace: '))?.answer as { result: { calls: { logs: { address: string }[] }[] }[] }
  const kinds = traced.result[0]!.calls.map((c) => c.logs.map((l) => (l.address === '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' ? 'T' : 'L')).join(''))
  expect(kinds).toEqual(['TLTLLT', 'TL'])
}

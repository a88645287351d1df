import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

// Runs test/harness-suite (two files of tests that each assume a clean chain)
// the way a user's suite runs: vitest workers in parallel, devnet/vitest in a
// setup file. They pass only if every worker has its own devnet and every
// test is reverted.
describe('devnet/vitest in a parallel vitest run', () => {
  test('each worker gets its own devnet and every test starts from the same chain', async () => {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['vitest', 'run', '--config', 'test/harness-suite/vitest.config.ts', '--reporter', 'verbose'],
      { cwd: root, env: { ...process.env, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 120_000 },
    )
    expect(stdout).toMatch(/Tests\s+6 passed \(6\)/)
    const workers = new Map<string, Set<string>>()
    for (const [, pid, port] of stdout.matchAll(/devnet-worker (\d+) (\d+)/g)) {
      if (!workers.has(pid!)) workers.set(pid!, new Set())
      workers.get(pid!)!.add(port!)
    }
    // Two workers ran, each on one devnet of its own.
    expect(workers.size).toBe(2)
    const ports = [...workers.values()]
    for (const set of ports) expect(set.size).toBe(1)
    expect(new Set(ports.flatMap((s) => [...s])).size).toBe(2)
  })
})

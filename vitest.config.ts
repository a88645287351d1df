import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { isStale } from './scripts/build.mjs'
import LongFirstSequencer from './test/longFirstSequencer.js'

/**
 * Test files that each run in a fresh process: they check what a fresh process holds, or change it for the files
 * after them. V8 refuses a code cache made under other V8 flags, and keccakMemo sets one (--expose-gc).
 */
const freshProcess = [
  'test/engine/registry.test.ts', // a lazy engine patch is not applied before the first fork
  'test/bundle.test.ts', // V8 accepts the build's code cache (under the process' V8 flags)
  'test/evm/keccakMemo.test.ts', // sets --expose-gc
]

export default defineConfig({
  resolve: {
    alias: {
      'devnet/payments': fileURLToPath(new URL('./src/payments/index.ts', import.meta.url)),
      'devnet/x402': fileURLToPath(new URL('./src/x402/index.ts', import.meta.url)),
      'devnet/vitest': fileURLToPath(new URL('./src/testing/vitest.ts', import.meta.url)),
      'devnet/prool': fileURLToPath(new URL('./src/testing/prool.ts', import.meta.url)),
      devnet: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default for `run` is cores - 1: one worker on a 2-core machine,
    // so the whole suite ran file after file while much of it waits on spawned
    // CLIs, sockets and the disk. At least two workers; the default above that.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // DEVNET_TEST_SHUFFLE=seed: the files in a seeded random order instead (a file must not lean on the ones before it
    // in its worker: run a few seeds after adding a file that changes what a process holds).
    sequence: process.env.DEVNET_TEST_SHUFFLE
      ? { shuffle: { files: true, tests: false }, seed: Number(process.env.DEVNET_TEST_SHUFFLE) }
      : { sequencer: LongFirstSequencer },
    // CLI tests spawn bin/devnet.js: the built CLI bundle when dist/ is newer than every source (CI: `npm ci` has just
    // built it), the source otherwise, never a stale dist/. A start from the source compiles it through tsx first
    // (~3 s of CPU against ~0.4 s), and the CLI tests spawn dozens. DEVNET_FROM_SOURCE set by hand wins.
    env: { DEVNET_FROM_SOURCE: process.env.DEVNET_FROM_SOURCE ?? (isStale() ? '1' : '') },
    // A worker runs its files in one module graph (isolate: false): each file importing the engine, viem and the
    // node afresh was half the suite's CPU (import 142 s of a 274 s run on 2 cores, against 16 s). Every devnet a
    // test makes is its own; what a process holds once (the engine patches, memos of pure functions) is the same
    // for every file. A file that checks what a fresh process holds is listed in `freshProcess` and runs alone.
    projects: [
      { extends: true, test: { name: 'shared', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...freshProcess], isolate: false } },
      { extends: true, test: { name: 'fresh', isolate: true, include: freshProcess } },
    ],
  },
})

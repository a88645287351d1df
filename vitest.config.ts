import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { isStale } from './scripts/build.mjs'
import LongFirstSequencer from './test/longFirstSequencer.js'

/** Test files that check what a fresh process holds (a lazy engine patch not applied before the first fork). */
const freshProcess = ['test/engine/registry.test.ts']

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
    sequence: { sequencer: LongFirstSequencer },
    // CLI tests spawn bin/devnet.js: the built CLI bundle when dist/ is newer than every source (CI: `npm ci` has just
    // built it), the source otherwise, never a stale dist/. A start from the source compiles it through tsx first
    // (~3 s of CPU against ~0.4 s), and the CLI tests spawn dozens.
    env: { DEVNET_FROM_SOURCE: isStale() ? '1' : '' },
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

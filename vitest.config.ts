import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { isStale } from './scripts/build.mjs'
import LongFirstSequencer from './test/longFirstSequencer.js'

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
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
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
  },
})

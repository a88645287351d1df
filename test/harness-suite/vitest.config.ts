import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// A small suite run the way a user runs theirs: parallel workers, each with
// its own devnet from devnet/vitest, every test wrapped in snapshot/revert.
// test/harness/suite.test.ts runs it; it is not part of the main include.
const root = new URL('../../', import.meta.url)
export default defineConfig({
  root: fileURLToPath(root),
  resolve: {
    alias: {
      'devnet/vitest': fileURLToPath(new URL('src/testing/vitest.ts', root)),
      devnet: fileURLToPath(new URL('src/index.ts', root)),
    },
  },
  test: {
    include: ['test/harness-suite/*.suite.ts'],
    setupFiles: ['test/harness-suite/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})

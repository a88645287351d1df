import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

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
    // CLI tests spawn bin/devnet.js: run the source, never a stale dist/.
    env: { DEVNET_FROM_SOURCE: '1' },
  },
})

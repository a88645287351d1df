#!/usr/bin/env node
// Runs the bundled CLI when present (npm ci builds it via `prepare`: tsc, then scripts/bundle.mjs), else the
// TypeScript source through tsx. DEVNET_FROM_SOURCE=1 forces the source: the test suite sets it, so a dist/ older
// than src/ is never what is tested.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const bundled = fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url))
if (existsSync(bundled) && process.env.DEVNET_FROM_SOURCE !== '1') {
  const { runWithCodeCache } = await import('./codeCache.js')
  runWithCodeCache(bundled)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}

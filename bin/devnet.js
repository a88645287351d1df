#!/usr/bin/env node
// Runs the compiled CLI when present (npm ci builds it via `prepare`), else the TypeScript source through tsx.
// DEVNET_FROM_SOURCE=1 forces the source: the test suite sets it, so a dist/ older than src/ is never what is tested.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
if (existsSync(compiled) && process.env.DEVNET_FROM_SOURCE !== '1') await import(compiled)
else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}

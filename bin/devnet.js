#!/usr/bin/env node
// Runs the bundled CLI when present (npm ci builds it via `prepare`: tsc, then scripts/bundle.mjs), else the
// TypeScript source through tsx. DEVNET_FROM_SOURCE=1 forces the source: the test suite sets it, so a dist/ older
// than src/ is never what is tested.
import { existsSync } from 'node:fs'
import module from 'node:module'
import { fileURLToPath } from 'node:url'

// Node >= 22.1 keeps compiled code of the modules loaded from here on in its on-disk cache (os.tmpdir()), so later
// starts skip most of the parsing; Node 20 has no such cache and skips this.
module.enableCompileCache?.()

const bundled = fileURLToPath(new URL('../dist/bundle/cli.js', import.meta.url))
if (existsSync(bundled) && process.env.DEVNET_FROM_SOURCE !== '1') await import(bundled)
else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}

#!/usr/bin/env node
// Runs the bundled CLI when present (npm ci builds it via `prepare`: tsc, then scripts/bundle.mjs), else the
// TypeScript source through tsx. DEVNET_FROM_SOURCE=1 forces the source: the test suite sets it, so a dist/ older
// than src/ is never what is tested.
//
// CommonJS (bin/package.json), unlike the rest of the package: Node runs a CommonJS entry without starting its ES
// module loader (and node:fs/promises and node:readline, which that loader reads files with), ~6 ms of CPU of every
// start (`--version` measured 96 against 90 ms of CPU, median of 15, alternated).
'use strict'
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const bundles = join(__dirname, '..', 'dist', 'bundle')
if (existsSync(join(bundles, 'front.cjs')) && process.env.DEVNET_FROM_SOURCE !== '1') {
  require('./codeCache.js').runCliBundles(bundles, process.argv.slice(2))
} else {
  import('tsx/esm/api').then(({ register }) => {
    register()
    return import('../src/cli/main.ts')
  })
}

#!/usr/bin/env node
/**
 * `npm run build`: compiles src/ to dist/ (tsc -p tsconfig.build.json),
 * bundles the library's engine with its private @ethereumjs over
 * dist/evm/engine.js (scripts/engineBundle.mjs), then builds the live page
 * (scripts/build-ui.mjs) and bundles the CLI (scripts/bundle.mjs).
 *
 * `--library --outdir DIR` builds only the library (tsc and the engine) into
 * DIR (test/engine/isolation.test.ts), which must sit inside the package so
 * that its modules find node_modules.
 *
 * `--if-stale` (the `prepare` script) skips the build when dist/ is newer than
 * every input. Why: the first `npx devnet start` in a checkout installs the
 * project into npx's cache as a link to itself, which runs `prepare` again
 * right after `npm ci` built it; a full rebuild there is half a minute of
 * waiting, and an interrupted one leaves npx's cache broken (ENOENT on every
 * later `npx devnet`, until ~/.npm/_npx is cleared).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildEngine } from './engineBundle.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const outputs = [join(root, 'dist', 'index.js'), join(root, 'dist', 'evm', 'engine.js'), join(root, 'dist', 'ui', 'page', 'app.js'), join(root, 'dist', 'bundle', 'front.cjs'), join(root, 'dist', 'bundle', 'cli.cjs')]
const inputs = ['src', 'scripts/build.mjs', 'scripts/engineBundle.mjs', 'scripts/bundle.mjs', 'scripts/codeCacheWorkload.mjs', 'scripts/build-ui.mjs', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']

/** Newest modification time of a file, or of the files under a folder. */
function newest(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

export function isStale() {
  const built = Math.min(...outputs.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)))
  return built === 0 || inputs.some((input) => newest(join(root, input)) > built)
}

/** tsc's output of src/ and the engine bundled over it, into `distDir`. */
export async function buildLibrary(distDir) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', distDir], { stdio: 'inherit' })
  const size = await buildEngine(root, distDir)
  console.log(`engine: ${join(distDir, 'evm', 'engine.js').slice(root.length)}, ${(size / 1024).toFixed(0)} KiB, @ethereumjs inlined`)
}

const main = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
const outdirFlag = process.argv.indexOf('--outdir')
if (!main) {
  // Imported for isStale.
} else if (process.argv.includes('--library')) {
  if (outdirFlag < 0) throw new Error('scripts/build.mjs: --library needs --outdir DIR')
  await buildLibrary(resolve(process.argv[outdirFlag + 1]))
} else if (process.argv.includes('--if-stale') && !isStale()) {
  console.log('build: dist/ is newer than its sources; nothing to do')
} else {
  await buildLibrary(join(root, 'dist'))
  execFileSync(process.execPath, [join(root, 'scripts', 'build-ui.mjs')], { stdio: 'inherit' })
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit' })
}

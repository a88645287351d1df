#!/usr/bin/env node
/**
 * `npm run build`: compiles src/ to dist/ (tsc -p tsconfig.build.json), then
 * builds the live page (scripts/build-ui.mjs) and bundles the CLI
 * (scripts/bundle.mjs).
 *
 * `--if-stale` (the `prepare` script) skips both when dist/ is newer than
 * every input. Why: the first `npx devnet start` in a checkout installs the
 * project into npx's cache as a link to itself, which runs `prepare` again
 * right after `npm ci` built it; a full rebuild there is half a minute of
 * waiting, and an interrupted one leaves npx's cache broken (ENOENT on every
 * later `npx devnet`, until ~/.npm/_npx is cleared).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const outputs = [join(root, 'dist', 'index.js'), join(root, 'dist', 'ui', 'page', 'app.js'), join(root, 'dist', 'bundle', 'cli.cjs')]
const inputs = ['src', 'scripts/bundle.mjs', 'scripts/build-ui.mjs', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']

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

if (process.argv.includes('--if-stale') && !isStale()) {
  console.log('build: dist/ is newer than its sources; nothing to do')
} else {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
  execFileSync(process.execPath, [join(root, 'scripts', 'build-ui.mjs')], { stdio: 'inherit' })
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit' })
}

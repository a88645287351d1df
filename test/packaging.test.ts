import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/*
 * What `npm pack` / `npm publish` ship. dist/ is git-ignored, and npm falls
 * back to .gitignore without a `files` list, so a published devnet would have
 * had no dist/ at all and shipped test/, bench/ and the vendored corpus
 * instead: package.json's `files` decides, and this holds it to the entry
 * points the package declares.
 */
const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))

function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  return (JSON.parse(out)[0].files as { path: string }[]).map((f) => f.path)
}

/** Every file an `exports` condition or `bin` names. */
function declaredFiles(): string[] {
  const targets: string[] = Object.values(manifest.bin as Record<string, string>)
  for (const entry of Object.values(manifest.exports as Record<string, string | Record<string, string>>)) {
    targets.push(...(typeof entry === 'string' ? [entry] : Object.values(entry)))
  }
  return targets.map((t) => t.replace(/^\.\//, ''))
}

describe('package contents', () => {
  const files = packedFiles()

  it('ships every entry point and bin the manifest declares, and the CLI bundle', () => {
    for (const file of declaredFiles()) expect(files, file).toContain(file)
    expect(files).toContain('dist/bundle/front.cjs')
    expect(files).toContain('dist/bundle/cli.cjs')
    expect(files).toContain('bin/codeCache.js')
  })

  it('ships no tests, benchmarks, fixtures, CI scripts or vendored test data', () => {
    const stray = files.filter((f) => /^(test|bench|fixtures|examples|scripts|\.ci|conformance)\//.test(f))
    expect(stray).toEqual([])
  })
})

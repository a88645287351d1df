import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'

/**
 * For the genesis disk cache tests (src/evm/genesisDiskCache.ts): each test
 * runs with TMPDIR pointed at a fresh directory (the cache lives in
 * `<tmpdir>/devnet-cache-<uid>/`), restored and removed after it.
 * `cacheFiles()` lists the cache files written there.
 */
export function useTemporaryCacheDir() {
  let saved: string | undefined
  let dir: string
  beforeEach(() => {
    saved = process.env.TMPDIR
    dir = mkdtempSync(join(tmpdir(), 'genesis-cache-test-'))
    process.env.TMPDIR = dir
  })
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    cacheFiles: () => {
      const sub = readdirSync(dir).find((name) => name.startsWith('devnet-cache-'))!
      return readdirSync(join(dir, sub)).map((name) => join(dir, sub, name))
    },
  }
}

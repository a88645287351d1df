import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, onTestFinished } from 'vitest'

/**
 * A fresh folder under the OS temp folder (named `prefix` + random), removed
 * with its contents when the test that asked for it finishes, or, asked for
 * outside a test (at a file's top), when the file's tests are done: a suite
 * run leaves nothing behind in /tmp.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    onTestFinished(remove)
  } catch {
    // Not inside a test: the file's (or describe block's) end.
    afterAll(remove)
  }
  return dir
}

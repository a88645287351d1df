import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url))

describe('npm run example -- <name> (examples/run.ts)', () => {
  test('error: an unknown name lists every example in the folder and exits 2', async () => {
    const run = promisify(execFile)(process.execPath, [tsx, 'examples/run.ts', 'no-such-example'], { cwd: root })
    const error = (await run.catch((e) => e)) as { code: number; stderr: string }
    expect(error.code).toBe(2)
    const names = readdirSync(new URL('../../examples/', import.meta.url))
      .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
      .map((f) => f.slice(0, -3))
    expect(names).toEqual(expect.arrayContaining(['checkout', 'permit-checkout', 'spend-permission']))
    expect(error.stderr).toContain(`Unknown example "no-such-example". Available: ${names.sort().join(', ')}`)
  })
})

import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { HEAP_GROWING_PERCENT, SEMI_SPACE_MB, heapSettings } from '../../src/cli/heap.js'

const bin = fileURLToPath(new URL('../../bin/devnet.js', import.meta.url))
const youngGeneration = fileURLToPath(new URL('./youngGeneration.ts', import.meta.url))

/** The largest young generation (bytes) a child allocating with a high survival rate saw, under DEVNET_SEMI_SPACE_MB=`mb` ('': the default). */
async function largestYoungGeneration(mb: string) {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', youngGeneration], { env: { ...process.env, DEVNET_SEMI_SPACE_MB: mb } })
  return Number(stdout.trim())
}

const growing = (env: NodeJS.ProcessEnv, argv: string[] = []) => heapSettings(env, argv).growingPercent
const semi = (env: NodeJS.ProcessEnv, argv: string[] = []) => heapSettings(env, argv).semiSpaceMb

describe('the CLI heap settings', () => {
  test('set by default; a node flag of its own (argv or NODE_OPTIONS, either spelling) or 0 leaves V8 to choose', () => {
    expect(heapSettings({}, [])).toEqual({ growingPercent: HEAP_GROWING_PERCENT, semiSpaceMb: SEMI_SPACE_MB })
    expect(growing({ DEVNET_HEAP_GROWING_PERCENT: '' })).toBe(HEAP_GROWING_PERCENT)
    expect(growing({ DEVNET_HEAP_GROWING_PERCENT: '150' })).toBe(150)
    expect(growing({ DEVNET_HEAP_GROWING_PERCENT: '0' })).toBeUndefined()
    expect(growing({}, ['--heap-growing-percent=30'])).toBeUndefined()
    expect(growing({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=30' })).toBeUndefined()
    expect(semi({ DEVNET_SEMI_SPACE_MB: '4' })).toBe(4)
    expect(semi({ DEVNET_SEMI_SPACE_MB: '0' })).toBeUndefined()
    expect(semi({}, ['--max-semi-space-size=2'])).toBeUndefined()
    expect(semi({ NODE_OPTIONS: '--semi_space_growth_factor=4' })).toBeUndefined()
    // Each flag only decides its own setting; flags that merely start alike decide nothing.
    expect(heapSettings({}, ['--max-semi-space-size=2'])).toEqual({ growingPercent: HEAP_GROWING_PERCENT, semiSpaceMb: undefined })
    expect(heapSettings({ NODE_OPTIONS: '--max-old-space-size=512' }, ['--expose-gc'])).toEqual({ growingPercent: HEAP_GROWING_PERCENT, semiSpaceMb: SEMI_SPACE_MB })
  })

  test('not set in the build run that makes the code cache (every start would refuse a cache made under other flags)', () => {
    expect(heapSettings({ DEVNET_CODE_CACHE_WRITE: '1' }, [])).toEqual({ growingPercent: undefined, semiSpaceMb: undefined })
  })

  test('a bad value is refused by name', () => {
    for (const bad of ['-5', '1.5', 'lots', '1e3']) {
      expect(() => heapSettings({ DEVNET_HEAP_GROWING_PERCENT: bad }, [])).toThrow(/DEVNET_HEAP_GROWING_PERCENT/)
      expect(() => heapSettings({ DEVNET_SEMI_SPACE_MB: bad }, [])).toThrow(/DEVNET_SEMI_SPACE_MB/)
    }
  })

  test('the young generation stops growing at the cap (both semi-spaces); without it V8 grows it further', async () => {
    const [capped, uncapped] = await Promise.all([largestYoungGeneration(''), largestYoungGeneration('0')])
    const cap = 2 * SEMI_SPACE_MB * 2 ** 20
    expect(capped).toBeGreaterThan(0)
    expect(capped).toBeLessThanOrEqual(cap)
    // V8's own maximum depends on the machine's memory (16 MB per semi-space on 64-bit hosts with a few GB).
    if (uncapped > cap) expect(uncapped).toBeGreaterThan(capped)
  })

  test('`devnet start` refuses a bad DEVNET_HEAP_GROWING_PERCENT in one line, exit 2', async () => {
    const child = spawn(process.execPath, [bin, 'start', '--port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEVNET_HEAP_GROWING_PERCENT: 'lots' },
    })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(err).toContain('invalid DEVNET_HEAP_GROWING_PERCENT: "lots"')
  })
})

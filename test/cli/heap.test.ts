import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { HEAP_GROWING_PERCENT, heapGrowingPercent } from '../../src/cli/heap.js'

const bin = fileURLToPath(new URL('../../bin/devnet.js', import.meta.url))

describe('the CLI heap growing percent', () => {
  test('set by default; a node flag of its own (argv or NODE_OPTIONS, either spelling) or 0 leaves V8 to choose', () => {
    expect(heapGrowingPercent({}, [])).toBe(HEAP_GROWING_PERCENT)
    expect(heapGrowingPercent({ DEVNET_HEAP_GROWING_PERCENT: '' }, [])).toBe(HEAP_GROWING_PERCENT)
    expect(heapGrowingPercent({ DEVNET_HEAP_GROWING_PERCENT: '150' }, [])).toBe(150)
    expect(heapGrowingPercent({ DEVNET_HEAP_GROWING_PERCENT: '0' }, [])).toBeUndefined()
    expect(heapGrowingPercent({}, ['--heap-growing-percent=30'])).toBeUndefined()
    expect(heapGrowingPercent({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=30' }, [])).toBeUndefined()
    // Other flags that start alike are not it.
    expect(heapGrowingPercent({ NODE_OPTIONS: '--max-old-space-size=512' }, ['--expose-gc'])).toBe(HEAP_GROWING_PERCENT)
  })

  test('not set in the build run that makes the code cache (every start would refuse a cache made under other flags)', () => {
    expect(heapGrowingPercent({ DEVNET_CODE_CACHE_OUT: '/tmp/cache' }, [])).toBeUndefined()
  })

  test('a bad DEVNET_HEAP_GROWING_PERCENT is refused by name, by the function and by `devnet start` (exit 2)', async () => {
    for (const bad of ['-5', '1.5', 'lots']) expect(() => heapGrowingPercent({ DEVNET_HEAP_GROWING_PERCENT: bad }, [])).toThrow(/DEVNET_HEAP_GROWING_PERCENT/)
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

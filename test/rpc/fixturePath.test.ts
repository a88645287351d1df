import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { exposureWarning } from '../../src/cli/exposure.js'
import { type Devnet, createDevnet, defaultConfig } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'
import { tempDir } from '../tempDir.js'

const options = { mining: 'manual', clock: 'virtual', quiet: true } as const
const root = tempDir('devnet-fixture-path-')
const fixtures = join(root, 'fixtures')
const outside = join(root, 'outside')
mkdirSync(fixtures)
mkdirSync(outside)

const rpcError = (devnet: Devnet, method: string, params: unknown[]) =>
  devnet.request<LooseRpc>({ method, params }).then(
    () => undefined,
    (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
  )

describe('JSON-RPC fixture paths', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await createDevnet({ ...options, fixturesDir: fixtures })
  })
  afterAll(() => devnet.close())

  test('default: the fixtures directory is ./fixtures, and the file system is confined', () => {
    expect(defaultConfig.fixturesDir).toBe('fixtures')
    expect(defaultConfig.allowFs).toBe(false)
  })

  test('behavior: a relative path resolves inside the fixtures directory, subdirectories included', async () => {
    const written = (await devnet.request({ method: 'devnet_dumpFixture', params: ['deep/chain.json'] })) as { path: string }
    expect(written.path).toBe(join(fixtures, 'deep', 'chain.json'))
    expect(existsSync(join(fixtures, 'deep', 'chain.json'))).toBe(true)
    const loaded = await devnet.request({ method: 'devnet_loadFixture', params: ['./deep/../deep/chain.json'] })
    expect(loaded.blocks).toBe(1)
  })

  test('error: .., absolute paths and symbolic links out of the directory are refused with -32602 naming the rule', async () => {
    const rule = `JSON-RPC reads and writes fixtures only inside the fixtures directory "${fixtures}" (start devnet with --allow-fs to lift this)`
    expect(await rpcError(devnet, 'devnet_dumpFixture', ['../escape.json'])).toEqual({
      code: -32602,
      message: `invalid argument 0: "../escape.json" leads outside the directory: ${rule}`,
    })
    expect(await rpcError(devnet, 'devnet_loadFixture', [join(outside, 'x.json')])).toEqual({
      code: -32602,
      message: `invalid argument 0: ${JSON.stringify(join(outside, 'x.json'))} is absolute: ${rule}`,
    })
    symlinkSync(outside, join(fixtures, 'link'))
    writeFileSync(join(outside, 'real.json'), '{}')
    symlinkSync(join(outside, 'real.json'), join(fixtures, 'file-link.json'))
    for (const [method, path] of [
      ['devnet_dumpFixture', 'link/escape.json'],
      ['devnet_loadFixture', 'link/real.json'],
      ['devnet_loadFixture', 'file-link.json'],
      ['devnet_dumpFixture', 'file-link.json'],
    ] as const)
      expect(await rpcError(devnet, method, [path])).toEqual({
        code: -32602,
        message: `invalid argument 0: "${path}" leads outside the directory through a symbolic link: ${rule}`,
      })
    expect(existsSync(join(outside, 'escape.json'))).toBe(false)
    expect(await rpcError(devnet, 'devnet_dumpFixture', ['.'])).toMatchObject({ code: -32602 })
  })

  test('error: a missing file is -32000 naming the path as given', async () => {
    expect(await rpcError(devnet, 'devnet_loadFixture', ['missing.json'])).toEqual({
      code: -32000,
      message: "cannot read fixture missing.json: ENOENT: no such file or directory, open 'missing.json'",
    })
  })

  test('args: allowFs lifts the confinement', async () => {
    const open = await createDevnet({ ...options, allowFs: true })
    try {
      const path = join(outside, 'anywhere.json')
      expect(((await open.request({ method: 'devnet_dumpFixture', params: [path] })) as { path: string }).path).toBe(path)
      expect((await open.request({ method: 'devnet_loadFixture', params: [path] })).blocks).toBe(1)
    } finally {
      await open.close()
    }
  })
})

describe('exposureWarning (--host)', () => {
  test('default: loopback hosts print nothing', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(exposureWarning(host)).toBeUndefined()
  })
  test('behavior: any other host warns that the dev keys are unlocked', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'my-laptop.local'])
      expect(exposureWarning(host)).toMatch(/WARNING: listening on .*\n.*dev accounts are unlocked/)
  })
})

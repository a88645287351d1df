import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseStartArgs } from '../../src/cli/start.js'
import { userErrorMessage } from '../../src/cli/userError.js'
import { createDevnet, type DevnetOptions } from '../../src/index.js'
import { tempDir } from '../tempDir.js'

const dir = tempDir('devnet-user-error-')
const write = (name: string, content: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

/** The line the CLI prints for what createDevnet(options) throws. */
async function lineFor(options: DevnetOptions) {
  try {
    const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ...options })
    await devnet.close()
  } catch (error) {
    return userErrorMessage(error, { fixture: options.fixture })
  }
  throw new Error('expected createDevnet to fail')
}

describe('userErrorMessage', () => {
  test('names the file and the problem of each kind of bad input', async () => {
    // A version-1 file (JSON blocks, easy to edit by hand).
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/data/payments-v1.json', import.meta.url), 'utf8'))
    fixture.blocks[2].receipts = []
    const badFixture = write('bad-fixture.json', fixture)
    const badGenesis = write('bad-genesis.json', { config: { chainId: 'one' }, alloc: {} })
    const notJson = write('not-json.json', '{"config":')
    expect(await lineFor({ fixture: badFixture })).toBe(`fixture ${badFixture}: blocks[2]: 0 receipts for 1 transactions`)
    expect(await lineFor({ genesis: badGenesis })).toBe(`genesis ${badGenesis}: config.chainId: not a quantity ("one")`)
    expect(await lineFor({ genesis: notJson })).toMatch(new RegExp(`^genesis ${notJson}: .*JSON`))
    expect(await lineFor({ genesis: join(dir, 'missing.json') })).toMatch(/^genesis .*missing\.json: ENOENT/)
    expect(await lineFor({ mining: { type: 'interval', blockTim: 5 } as never })).toBe('invalid config key "mining.blockTim": unknown key')
  })

  test('a fork upstream that cannot be read is a user error (its URL, or the network to it), named in one line', async () => {
    const upstream = createServer((_, res) => res.writeHead(403).end('no key'))
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    try {
      expect(await lineFor({ fork: { url, blockNumber: 5, cacheDir: join(dir, 'fork-cache') } })).toBe(
        `fork upstream ${url} failed a batch of 2 (eth_chainId, eth_getBlockByNumber): HTTP 403: no key`,
      )
    } finally {
      await new Promise((resolve) => upstream.close(resolve))
    }
  })

  test('a fork block the upstream lacks is a user error, named in one line', async () => {
    // An upstream that has no block 5 (its header read answers null).
    const upstream = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        const batch = JSON.parse(body) as { id: number; method: string }[]
        const answers = batch.map(({ id, method }) => ({ jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x7a69' : null }))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers))
      })
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    try {
      expect(await lineFor({ fork: { url, blockNumber: 5, cacheDir: join(dir, 'fork-cache-missing') } })).toBe(`fork block 5 not found at ${url}`)
    } finally {
      upstream.closeAllConnections()
      await new Promise((resolve) => upstream.close(resolve))
    }
  })

  test('a devnet bug is not a user error', () => {
    expect(userErrorMessage(new TypeError('x is undefined'))).toBe(undefined)
  })
})

describe('parseStartArgs', () => {
  test('a bad flag is one line; a value starting with a dash says how to give it', () => {
    const line = (argv: string[]) => {
      try {
        parseStartArgs(argv)
      } catch (error) {
        return userErrorMessage(error)
      }
      throw new Error('expected parseStartArgs to fail')
    }
    expect(line(['start', '--fork-block', '-1'])).toBe("Option '--fork-block' argument is ambiguous: a value starting with a dash is written --fork-block=-…")
    expect(line(['start', '--no-such-flag'])).toBe("Unknown option '--no-such-flag'")
  })
})

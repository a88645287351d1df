import { type Server, createServer } from 'node:http'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createDevnet, loadConfig, startDevnet } from '../../src/index.js'
import { accountLine, appendCacheLog, readCacheLog, readLine } from '../../src/node/fork/cacheLog.js'
import { ForkRemoteError, createRemote } from '../../src/node/fork/remote.js'

/*
 * A fake upstream (node:http) that answers from recorded responses (a real
 * devnet's genesis header, plain account reads) and can be told to fail:
 * 429 first, 5xx, hang, answer garbage, or answer a JSON-RPC error.
 */

type Mode = 'ok' | 'hang' | 'garbage' | 'rpc-error' | '500'
let mode: Mode = 'ok'
let failFirst = 0
let httpRequests = 0
let items: string[] = []
/** While set, a request asking for a balance is answered only once it resolves. */
let holdBalances: Promise<void> | undefined
/** The methods of each HTTP request, in order. */
let bodies: string[][] = []
let recorded: { chainId: string; header: Record<string, unknown> }
let server: Server
let url: string
let cacheDir: string

function answer(request: { id: unknown; method: string; params: unknown[] }) {
  items.push(request.method)
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: request.id, result })
  if (mode === 'rpc-error' && request.method === 'eth_getBalance')
    return { jsonrpc: '2.0', id: request.id, error: { code: -32005, message: 'rate limit exceeded' } }
  switch (request.method) {
    case 'eth_chainId':
      return ok(recorded.chainId)
    case 'eth_blockNumber':
      return ok('0x0')
    case 'eth_getBlockByNumber':
      return ok(request.params[0] === '0x0' || request.params[0] === 'latest' ? recorded.header : null)
    case 'eth_getBalance':
      return ok('0xde0b6b3a7640000')
    case 'eth_getTransactionCount':
      return ok('0x3')
    case 'eth_getCode':
      return ok('0x')
    case 'eth_getStorageAt':
      return ok(`0x${'0'.repeat(64)}`)
    default:
      return { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'method not found' } }
  }
}

beforeAll(async () => {
  const source = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  recorded = {
    chainId: await source.request({ method: 'eth_chainId' }),
    header: await source.request({ method: 'eth_getBlockByNumber', params: ['0x0', false] }),
  }
  await source.close()
  cacheDir = mkdtempSync(join(tmpdir(), 'devnet-upstream-'))
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      httpRequests++
      if (failFirst > 0) {
        failFirst--
        res.writeHead(429).end('too many requests')
        return
      }
      if (mode === 'hang') return
      if (mode === '500') return void res.writeHead(502).end('bad gateway')
      if (mode === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>')
      const parsed = JSON.parse(body)
      const list: { method: string }[] = Array.isArray(parsed) ? parsed : [parsed]
      bodies.push(list.map((r) => r.method))
      const reply = () => {
        const out = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out))
      }
      if (holdBalances && list.some((r) => r.method === 'eth_getBalance')) void holdBalances.then(reply)
      else reply()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  rmSync(cacheDir, { recursive: true, force: true })
})

beforeEach(() => {
  mode = 'ok'
  failFirst = 0
  httpRequests = 0
  items = []
  bodies = []
  holdBalances = undefined
})

describe('fork upstream client', () => {
  test('behavior: reads of one tick go out as one batch; identical reads in flight are coalesced', async () => {
    const remote = createRemote({ url })
    const results = await Promise.all([
      remote.request('eth_getBalance', ['0x01', '0x0']),
      remote.request('eth_getBalance', ['0x01', '0x0']),
      remote.request('eth_getBalance', ['0x01', '0x0']),
      remote.request('eth_getTransactionCount', ['0x01', '0x0']),
      remote.request('eth_getCode', ['0x01', '0x0']),
    ])
    expect(results).toEqual(['0xde0b6b3a7640000', '0xde0b6b3a7640000', '0xde0b6b3a7640000', '0x3', '0x'])
    expect(httpRequests).toBe(1)
    expect(items).toEqual(['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'])
    expect(remote.stats).toEqual({ http: 1, requests: 3, retries: 0 })
  })

  test('behavior: 429 then success is retried', async () => {
    failFirst = 2
    const remote = createRemote({ url, backoffMs: 1 })
    expect(await remote.request('eth_chainId')).toBe(recorded.chainId)
    expect(remote.stats).toEqual({ http: 3, requests: 1, retries: 2 })
  })

  test('error: a timeout, after the retries, names the upstream', async () => {
    mode = 'hang'
    const remote = createRemote({ url, timeoutMs: 50, attempts: 2, backoffMs: 1 })
    const error = await remote.request<never>('eth_getBalance', ['0x01', '0x0']).catch((e: unknown) => e as ForkRemoteError)
    expect(error).toBeInstanceOf(ForkRemoteError)
    expect(error.shortMessage).toBe(`fork upstream ${url} failed eth_getBalance: timed out after 50 ms (after 2 attempts)`)
    expect(remote.stats).toEqual({ http: 2, requests: 1, retries: 1 })
  })

  test('error: a 5xx that does not go away', async () => {
    mode = '500'
    const remote = createRemote({ url, attempts: 3, backoffMs: 1 })
    const error = await remote.request<never>('eth_chainId').catch((e: unknown) => e as ForkRemoteError)
    expect(error.shortMessage).toBe(`fork upstream ${url} failed eth_chainId: HTTP 502 (after 3 attempts)`)
  })

  test('error: an https upstream goes through TLS (node:https, loaded on first use): a plain HTTP server fails the handshake', async () => {
    const remote = createRemote({ url: url.replace('http:', 'https:'), attempts: 1 })
    const error = await remote.request<never>('eth_chainId').catch((e: unknown) => e as ForkRemoteError)
    remote.close()
    expect(error).toBeInstanceOf(ForkRemoteError)
    expect(error.shortMessage).toMatch(/^fork upstream https:\/\/127\.0\.0\.1:\d+ failed eth_chainId: .*(SSL|TLS|EPROTO|wrong version)/i)
  })

  test('error: a malformed reply is not retried', async () => {
    mode = 'garbage'
    const remote = createRemote({ url, backoffMs: 1 })
    const error = await remote.request<never>('eth_chainId').catch((e: unknown) => e as ForkRemoteError)
    expect(error.shortMessage).toBe(`fork upstream ${url} failed eth_chainId: malformed reply (not JSON): "<html>oops</html>"`)
    expect(httpRequests).toBe(1)
  })
})

describe('fork start', () => {
  const post = (url: string, method: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) }).then(
      (r) => r.json() as Promise<{ result?: unknown }>,
    )

  test('a cold start asks for the chain id and the fork block in one batch, and answers eth_chainId before its node is built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-upstream-cold-'))
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    let release!: () => void
    holdBalances = new Promise<void>((resolve) => (release = resolve))
    const starting = startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, port, fork: { url, blockNumber: 0, cacheDir: dir } })
    try {
      const local = `http://127.0.0.1:${port}`
      // The node waits for its dev accounts' balances (held); the chain id is known from the first batch.
      let chainId: unknown
      for (let i = 0; i < 500 && chainId === undefined; i++)
        chainId = await post(local, 'eth_chainId').then((r) => r.result, () => new Promise((r) => setTimeout(r, 10)))
      expect(chainId).toBe(recorded.chainId)
      expect(bodies[0]).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
      release()
      expect((await post(local, 'eth_blockNumber')).result).toBe('0x0')
      // Then the dev accounts and the system contracts the first block calls, in one batch: two requests in all.
      expect(bodies.length).toBe(2)
    } finally {
      release()
      await (await starting).close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('"latest" is one read: the head header names its number', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-upstream-latest-'))
    const fork = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fork: { url, blockNumber: 'latest', cacheDir: dir } })
    try {
      expect(bodies[0]).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
      expect(items).not.toContain('eth_blockNumber')
      expect(fork.node.fork!.blockHash).toBe(recorded.header.hash)
    } finally {
      await fork.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('fork disk cache', () => {
  const rpc = async (url: string, method: string, params: unknown[]) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
    return ((await response.json()) as { result: unknown }).result
  }
  const start = (dir: string) => startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fork: { url, blockNumber: 0, cacheDir: dir } })

  test('an append-only log: a restart reads it without a remote call (one batch, the caches check, aside), new reads are appended, a torn last line is skipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-cache-log-'))
    const file = join(dir, String(BigInt(recorded.chainId)), '0.log')
    try {
      let fork = await start(dir)
      await rpc(fork.url, 'eth_getBalance', ['0x00000000000000000000000000000000000000b1', 'latest'])
      await fork.close()
      const first = readFileSync(file, 'utf8')
      expect(first.split('\n')[0]).toBe(`devnet fork cache\t2\t${BigInt(recorded.chainId)}\t0`)
      expect(first).toContain('a\t0x00000000000000000000000000000000000000b1\t0x3\t0xde0b6b3a7640000\t0x\n')
      // A torn last line (a process killed while appending) is skipped.
      appendFileSync(file, 'a\t0x00000000000000000000000000000000000000b2\t0x9')
      httpRequests = 0
      bodies = []
      fork = await start(dir)
      expect(await rpc(fork.url, 'eth_getBalance', ['0x00000000000000000000000000000000000000b1', 'latest'])).toBe('0xde0b6b3a7640000')
      // One request: the chain id and the fork block's header, which say the caches are of this chain.
      expect(bodies).toEqual([['eth_chainId', 'eth_getBlockByNumber']])
      expect(httpRequests).toBe(1)
      expect(await rpc(fork.url, 'eth_getTransactionCount', ['0x00000000000000000000000000000000000000b2', 'latest'])).toBe('0x3')
      expect(httpRequests).toBe(2)
      await fork.close()
      const second = readFileSync(file, 'utf8')
      // Appended, not rewritten.
      expect(second.startsWith(first)).toBe(true)
      expect(second.slice(first.length)).toMatch(/^a\t0x00000000000000000000000000000000000000b2\t0x9\na\t0x00000000000000000000000000000000000000b2\t0x3\t/)
      // And read back: the torn line stays skipped, the entry after it is whole.
      httpRequests = 0
      fork = await start(dir)
      expect(await rpc(fork.url, 'eth_getTransactionCount', ['0x00000000000000000000000000000000000000b2', 'latest'])).toBe('0x3')
      expect(httpRequests).toBe(1)
      await fork.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a cache of another chain at the same chain id and block (a local chain restarted) is dropped; an unanswered check trusts it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-cache-stale-'))
    const file = join(dir, String(BigInt(recorded.chainId)), '0.log')
    const b1 = '0x00000000000000000000000000000000000000b1'
    try {
      let fork = await start(dir)
      await rpc(fork.url, 'eth_getBalance', [b1, 'latest'])
      await fork.close()
      // What the cache would hold had the chain at this URL been another one: another hash at block 0, another balance.
      const otherHash = `0x${'ab'.repeat(32)}`
      const stale = readFileSync(file, 'utf8')
        .replace(String(recorded.header.hash), otherHash)
        .replace(`a\t${b1}\t0x3\t0xde0b6b3a7640000\t0x`, `a\t${b1}\t0x3\t0x1\t0x`)
      expect(stale).toContain(otherHash)
      writeFileSync(file, stale)

      // The upstream down: the check goes unanswered (after its retries), and the cache is read as it is.
      mode = '500'
      fork = await start(dir)
      expect(fork.node.fork!.cache.dropped).toBe(false)
      expect(await rpc(fork.url, 'eth_getBalance', [b1, 'latest'])).toBe('0x1')
      await fork.close()
      // An upstream that never answers: the start waits cacheCheckMs (3 s) for the check, not the upstream client's
      // timeouts (5 attempts of 30 s, well past this test's timeout).
      mode = 'hang'
      fork = await start(dir)
      expect(fork.node.fork!.cache.dropped).toBe(false)
      expect(await rpc(fork.url, 'eth_getBalance', [b1, 'latest'])).toBe('0x1')
      await fork.close()

      mode = 'ok'
      bodies = []
      fork = await start(dir)
      expect(fork.node.fork!.cache.dropped).toBe(true)
      expect(fork.node.fork!.blockHash).toBe(recorded.header.hash)
      // The upstream's balance, read again, not the other chain's.
      expect(await rpc(fork.url, 'eth_getBalance', [b1, 'latest'])).toBe('0xde0b6b3a7640000')
      // The check first; then the start reads again what a cold one reads (dev accounts, system contracts), and b1.
      expect(bodies[0]).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
      expect(bodies.length).toBeGreaterThan(1)
      await fork.close()
      // The file started again: this chain's header and balance, none of the other's.
      const rewritten = readFileSync(file, 'utf8')
      expect(rewritten.split('\n')[0]).toBe(`devnet fork cache\t2\t${BigInt(recorded.chainId)}\t0`)
      expect(rewritten).toContain(String(recorded.header.hash))
      expect(rewritten).not.toContain(otherHash)
      expect(rewritten).toContain(`a\t${b1}\t0x3\t0xde0b6b3a7640000\t0x`)
    } finally {
      mode = 'ok'
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a chain id changed at a URL forked before stops the start, naming both; the next start has the new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-cache-chainid-'))
    const original = recorded
    try {
      const fork = await start(dir)
      await fork.close()
      recorded = { ...original, chainId: '0x2105' }
      await expect(start(dir)).rejects.toThrow(`now has chain id 8453, not ${BigInt(original.chainId)} as when this URL was forked before`)
      const again = await start(dir)
      expect(again.node.fork!.upstreamChainId).toBe(8453n)
      expect(await rpc(again.url, 'eth_chainId', [])).toBe('0x2105')
      await again.close()
    } finally {
      recorded = original
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a log with text beyond ASCII reads back as written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-cache-utf8-'))
    try {
      const file = join(dir, '1', '5.log')
      appendCacheLog(file, 1n, 5n, [readLine('eth_getLogs:[{"note":"ü"}]', [{ data: '0x', note: 'naïve ✓' }]), accountLine('0x01', null)], true)
      const loaded = readCacheLog(file, 1n, 5n)!
      expect(JSON.parse(loaded.rawReads.get('eth_getLogs:[{"note":"ü"}]')!)).toEqual([{ data: '0x', note: 'naïve ✓' }])
      expect(loaded.accounts).toEqual({ '0x01': null })
      expect(loaded.torn).toBe(false)
      // Another pin's file is not this one's.
      expect(readCacheLog(file, 1n, 6n)).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a version 1 cache (one JSON document) is still read, and written out as a log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-cache-v1-'))
    const folder = join(dir, String(BigInt(recorded.chainId)))
    try {
      mkdirSync(folder, { recursive: true })
      mkdirSync(join(dir, 'urls'), { recursive: true })
      const v1 = {
        version: 1,
        chainId: String(BigInt(recorded.chainId)),
        blockNumber: '0',
        accounts: { '0x00000000000000000000000000000000000000c1': ['0x7', '0x64', '0x'] },
        storage: {},
        reads: { 'eth_getBlockByNumber:["0x0",false]': recorded.header },
      }
      writeFileSync(join(folder, '0.json'), JSON.stringify(v1))
      // The URL's chain id too (the cache of an earlier start): a warm start asks for its check only.
      const fork = await start(dir)
      const requestsAtStart = httpRequests
      expect(await rpc(fork.url, 'eth_getBalance', ['0x00000000000000000000000000000000000000c1', 'latest'])).toBe('0x64')
      expect(httpRequests).toBe(requestsAtStart)
      await fork.close()
      const log = readFileSync(join(folder, '0.log'), 'utf8')
      expect(log).toContain('a\t0x00000000000000000000000000000000000000c1\t0x7\t0x64\t0x\n')
      expect(log).toContain(`r\teth_getBlockByNumber:["0x0",false]\t${JSON.stringify(recorded.header)}\n`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('fork over a failing upstream', () => {
  test('a start through 429s, then upstream failures reach the caller as -32000 naming the upstream', async () => {
    failFirst = 1
    const fork = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fork: { url, blockNumber: 0, cacheDir } })
    try {
      expect(fork.node.fork!.remote.stats.retries).toBe(1)
      const rpc = async (method: string, params: unknown[]) => {
        const response = await fetch(fork.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
        return (await response.json()) as any
      }
      expect(await rpc('eth_getBalance', ['0x00000000000000000000000000000000000000a1', 'latest'])).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: '0xde0b6b3a7640000',
      })
      mode = 'garbage'
      expect(await rpc('eth_getBalance', ['0x00000000000000000000000000000000000000a2', 'latest'])).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, message: `fork upstream ${url} failed a batch of 3 (eth_getBalance, eth_getTransactionCount, eth_getCode): malformed reply (not JSON): "<html>oops</html>"` },
      })
      mode = 'rpc-error'
      const limited = await rpc('eth_getBalance', ['0x00000000000000000000000000000000000000a3', 'latest'])
      expect(limited.error).toEqual({ code: -32000, message: `fork upstream ${url} failed eth_getBalance: error -32005: rate limit exceeded` })
      // A transaction touching an unreadable account fails with the same error; the node keeps serving.
      expect((await rpc('eth_call', [{ to: '0x00000000000000000000000000000000000000a4' }, 'latest'])).error.code).toBe(-32000)
      mode = 'ok'
      expect((await rpc('eth_getBalance', ['0x00000000000000000000000000000000000000a3', 'latest'])).result).toBe('0xde0b6b3a7640000')
      expect((await rpc('eth_blockNumber', [])).result).toBe('0x0')
    } finally {
      await fork.close()
    }
  })
})

describe('fork config', () => {
  test('default: blockNumber latest, cache dir and chain id unset', () => {
    expect(loadConfig({ fork: { url: 'http://127.0.0.1:1' } }).fork).toEqual({
      url: 'http://127.0.0.1:1',
      blockNumber: 'latest',
      cacheDir: undefined,
      chainId: undefined,
      offline: false,
    })
    expect(loadConfig({ fork: { url: 'https://x.example', blockNumber: '12', chainId: 7, cacheDir: '/c' } }).fork).toEqual({
      url: 'https://x.example',
      blockNumber: 12n,
      cacheDir: '/c',
      chainId: 7n,
      offline: false,
    })
  })

  test('error: bad keys and values are named', () => {
    expect(() => loadConfig({ fork: { url: 'ftp://x' } })).toThrow('invalid config key "fork.url": expected an http(s) URL, got "ftp://x"')
    expect(() => loadConfig({ fork: { url: 'http://x', blockNumber: 'soon' } })).toThrow('invalid config key "fork.blockNumber"')
    expect(() => loadConfig({ fork: { url: 'http://x', block: 1 } as never })).toThrow('invalid config key "fork.block": unknown key')
  })
})

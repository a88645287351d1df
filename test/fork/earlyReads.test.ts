import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeFunctionData, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { resolveConfig } from '../../src/config/resolve.js'
import { systemContracts } from '../../src/evm/engine.js'
import { tombstoneAddress } from '../../src/evm/forkState.js'
import { deriveAccounts } from '../../src/node/accounts.js'
import { startWrites } from '../../src/node/fork/earlyReads.js'
import { pinCacheFile } from '../../src/node/fork/firstReads.js'
import { type StartedDevnet, serveListening, startDevnet } from '../../src/index.js'
import { type Listening, listenFirst } from '../../src/server/listenFirst.js'
import { type LooseRpc } from '../utils.js'
import { send } from './send.js'

/*
 * A fork's account reads answered before the node is built (src/node/fork/earlyReads.ts, in the CLI's front):
 * listenFirst opens the socket and nothing serves it yet, so a request answered at all was answered early. Each
 * answer is then compared, byte for byte, with the node's once it is built from the same listening server.
 */

const payee = '0x2000000000000000000000000000000000000002'
const empty = '0x2000000000000000000000000000000000000009'
/** An empty account asked for in mixed case: answered as the node answers any spelling. */
const mixed = '0x2000000000000000000000000000000000000aBc'

let remote: StartedDevnet
let pin: bigint
let proxy: { url: string; methods: string[][]; failNext: (methods: string) => void; close(): Promise<void> }

/** Between the fork and the remote: the JSON-RPC methods of each HTTP request, and a 500 for the next request of `methods` when told. */
async function recordingProxy(target: string) {
  const methods: string[][] = []
  let failing: string | undefined
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', async () => {
      const parsed = JSON.parse(body) as { method: string } | { method: string }[]
      const asked = (Array.isArray(parsed) ? parsed : [parsed]).map((r) => r.method)
      methods.push(asked)
      if (failing !== undefined && asked.join() === failing) {
        failing = undefined
        res.writeHead(500).end('upstream trouble')
        return
      }
      const reply = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(await reply.text())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    failNext: (asked: string) => void (failing = asked),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const accountBatch = 'eth_getBalance,eth_getTransactionCount,eth_getCode'

/** The raw JSON-RPC answer to `method(params)` at `url`, or undefined when none came within `ms` (it waits for a node). */
async function post(url: string, method: string, params: unknown[], ms = 1_000): Promise<string | undefined> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), ms)
  try {
    const reply = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), signal: controller.signal })
    return await reply.text()
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}

async function listen(cacheDir: string, extra: { offline?: boolean; mnemonic?: string; latest?: boolean } = {}): Promise<Listening> {
  const fork = { url: proxy.url, blockNumber: extra.latest ? ('latest' as const) : Number(pin), cacheDir, offline: extra.offline ?? false }
  const config = await resolveConfig({ port: 0, mining: 'manual', clock: 'virtual', quiet: true, ...(extra.mnemonic ? { mnemonic: extra.mnemonic } : {}), fork })
  return listenFirst(config)
}
/** The remote's answer for the payee's balance at `tag`. */
const payeeBalance = (tag: string) => remote.request<LooseRpc>({ method: 'eth_getBalance', params: [payee, tag] })
/** Runs `run` with a fresh fork cache directory, removed after. */
async function withCacheDir(run: (cacheDir: string) => Promise<void>) {
  const cacheDir = mkdtempSync(join(tmpdir(), 'devnet-early-'))
  try {
    await run(cacheDir)
  } finally {
    rmSync(cacheDir, { recursive: true, force: true })
  }
}

/** Builds the node behind `listening`, runs `run` against it, and closes it. */
async function served(listening: Listening, run: (fork: StartedDevnet) => Promise<void> = async () => {}) {
  const fork = await serveListening(listening)
  try {
    await run(fork)
  } finally {
    await fork.close()
  }
}

const urlOf = (listening: Listening) => listening.server.url

beforeAll(async () => {
  remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  await send(remote, 0, { to: remote.token.address, data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [payee, 5_000_000n] }) })
  await send(remote, 1, { to: payee, value: parseEther('2') })
  await remote.seal()
  await remote.request({ method: 'anvil_mine', params: ['0x20'] })
  pin = remote.node.chain.height()
  // After the pin: the fork must not see it.
  await send(remote, 1, { to: payee, value: parseEther('3') })
  await remote.seal()
  proxy = await recordingProxy(remote.url)
}, 30_000)

afterAll(async () => {
  await proxy?.close()
  await remote?.close()
})

describe('fork: account reads answered while the engine loads', () => {
  test('behavior: balance, nonce and code at latest, pending and the pin are the node\'s answers, made before it is built, read once', () =>
    withCacheDir(async (cacheDir) => {
      const pinTag = `0x${pin.toString(16)}`
      const reads: [string, unknown[]][] = []
      for (const address of [payee, remote.token.address, empty, mixed])
        for (const method of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'])
          for (const tag of ['latest', 'pending', pinTag]) reads.push([method, [address, tag]])
      // A dev account of the fork (the config's balance, not the upstream's): not answered early.
      const devAccount = deriveAccounts(remote.config.mnemonic, 1)[0]!.address
      const listening = await listen(cacheDir)
      const url = urlOf(listening)
      proxy.methods.length = 0
      const early = await Promise.all(reads.map(([method, params]) => post(url, method, params)))
      expect(early.every((answer) => answer !== undefined)).toBe(true)
      // One batch of balance, nonce and code per address (the same reads the fork source makes), after the first batch.
      expect(proxy.methods.filter((m) => m.join() === accountBatch)).toHaveLength(4)
      const waiting = post(url, 'eth_getBalance', [devAccount, 'latest'], 60_000)
      expect(await Promise.race([waiting, new Promise((r) => setTimeout(() => r('still waiting'), 300))])).toBe('still waiting')

      await served(listening, async (fork) => {
        const before = proxy.methods.length
        const fromNode = await Promise.all(reads.map(([method, params]) => post(url, method, params)))
        expect(early).toEqual(fromNode)
        expect(JSON.parse((await waiting)!).result).toBe(`0x${fork.config.balance.toString(16)}`)
        // The node asked the upstream for none of them again: its own start's batch (dev accounts, system contracts) only.
        expect(proxy.methods.slice(before).filter((m) => m.join() === accountBatch)).toEqual([])
        // The upstream's values at the pin, not after it.
        expect(JSON.parse(early[0]!).result).toBe(await payeeBalance(pinTag))
        expect(JSON.parse(early[0]!).result).not.toBe(await payeeBalance('latest'))
      })
      // Written to the pin's cache by the node's fork source.
      const log = readFileSync(pinCacheFile(cacheDir, 31337n, pin), 'utf8')
      expect(log).toContain(`a\t${payee}\t`)
      expect(log).toContain(`a\t${empty}\t-`)

      // A warm start answers them early from that cache: its one upstream request is the caches' check (chain id, pin header).
      proxy.methods.length = 0
      const warm = await listen(cacheDir)
      expect(await Promise.all(reads.map(([method, params]) => post(urlOf(warm), method, params)))).toEqual(early)
      expect(proxy.methods).toEqual([['eth_chainId', 'eth_getBlockByNumber']])
      await served(warm)

      // The same file as another chain's at this chain id and block (its pin's hash and the payee's balance not the
      // upstream's, as after a local chain restarted): not read early; the upstream answers, as on a cold start.
      const file = pinCacheFile(cacheDir, 31337n, pin)
      const header = log.split('\n').find((line) => line.startsWith('r\teth_getBlockByNumber:'))!
      const hash = (JSON.parse(header.slice(header.indexOf('\t', 2) + 1)) as { hash: string }).hash
      const payeeLine = log.split('\n').find((line) => line.startsWith(`a\t${payee}\t`))!
      writeFileSync(file, readFileSync(file, 'utf8').replace(hash, `0x${'ab'.repeat(32)}`).replace(payeeLine, `a\t${payee}\t0x0\t0x1\t0x`))
      proxy.methods.length = 0
      const restarted = await listen(cacheDir)
      expect(await Promise.all(reads.map(([method, params]) => post(urlOf(restarted), method, params)))).toEqual(early)
      expect(proxy.methods[0]).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
      expect(proxy.methods.filter((m) => m.join() === accountBatch)).toHaveLength(4)
      await served(restarted, async (fork) => expect(fork.node.fork!.cache.dropped).toBe(true))
    }))

  test('default: other blocks, other methods, batches, notifications, start-written accounts and an unknown mnemonic wait for the node', async () => {
    await withCacheDir(async (cacheDir) => {
      const listening = await listen(cacheDir)
      const url = urlOf(listening)
      const waiting = [
        post(url, 'eth_getBalance', [payee, '0x1'], 60_000),
        post(url, 'eth_getBalance', [payee, 'earliest'], 60_000),
        post(url, 'eth_getBalance', [payee, 'safe'], 60_000),
        post(url, 'eth_getStorageAt', [payee, '0x0', 'latest'], 60_000),
        post(url, 'eth_getBalance', [systemContracts[0]!.address, 'latest'], 60_000),
        post(url, 'eth_getBalance', [payee, 'latest', 'extra'], 60_000),
        post(url, 'eth_getBalance', ['0x1234', 'latest'], 60_000),
      ]
      const batch = fetch(url, { method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [payee, 'latest'] }]) }).then((r) => r.text())
      const settled: unknown[] = []
      for (const p of [...waiting, batch]) void p.then(() => settled.push(p))
      await new Promise((r) => setTimeout(r, 300))
      expect(settled).toEqual([])
      await served(listening, async () => {
        const answers = (await Promise.all(waiting)).map((text) => JSON.parse(text!))
        expect(answers[0].result).toBe(await payeeBalance('0x1'))
        expect(answers[3].result).toBe(`0x${'0'.repeat(64)}`)
        expect(answers[6].error.code).toBe(-32602)
        expect(JSON.parse(await batch)[0].result).toBe(await payeeBalance(`0x${pin.toString(16)}`))
      })
    })
    // Another mnemonic: the dev accounts are not known without the curve work, so nothing is answered early.
    await withCacheDir(async (cacheDir) => {
      const custom = await listen(cacheDir, { mnemonic: 'legal winner thank year wave sausage worth useful legal winner thank yellow' })
      expect(await post(urlOf(custom), 'eth_getBalance', [payee, 'latest'], 300)).toBeUndefined()
      await served(custom)
    })
  })

  test('behavior: a fork of `latest` answers at the head the first batch named (its number is the pin)', () =>
    withCacheDir(async (cacheDir) => {
      const head = `0x${remote.node.chain.height().toString(16)}`
      const listening = await listen(cacheDir, { latest: true })
      const early = await post(urlOf(listening), 'eth_getBalance', [payee, head], 5_000)
      expect(JSON.parse(early!).result).toBe(await payeeBalance(head))
      // The remote's head is past the numbered pin of the other cases: a different balance, so the right block was read.
      expect(JSON.parse(early!).result).not.toBe(await payeeBalance(`0x${pin.toString(16)}`))
      await served(listening, async () => {
        expect(await post(urlOf(listening), 'eth_getBalance', [payee, 'latest'])).toBe(early)
      })
    }))

  test('error: an early read the upstream fails is left to the node, which retries it as any read', () =>
    withCacheDir(async (cacheDir) => {
      const listening = await listen(cacheDir)
      proxy.failNext(accountBatch)
      const answer = post(urlOf(listening), 'eth_getBalance', [payee, 'latest'], 60_000)
      await served(listening, async () => {
        expect(JSON.parse((await answer)!).result).toBe(await payeeBalance(`0x${pin.toString(16)}`))
      })
    }))

  test('error: offline, a read the cache lacks waits for the node, whose answer names what is missing', () =>
    withCacheDir(async (cacheDir) => {
      // Record the pin (the node's start reads), then replay it offline.
      await served(await listen(cacheDir))
      const listening = await listen(cacheDir, { offline: true })
      const answer = post(urlOf(listening), 'eth_getBalance', [payee, 'latest'], 60_000)
      await served(listening, async () => {
        expect(JSON.parse((await answer)!).error.message).toMatch(/offline, and the fork cache has no answer/)
      })
    }))

  test('the accounts a start writes are the engine\'s system contracts and the tombstones\' account', () => {
    expect(new Set(startWrites)).toEqual(new Set([...systemContracts.map((c) => c.address.toLowerCase()), tombstoneAddress.toString()]))
  })
})

import { createPublicClient, encodeFunctionData, http, parseGwei, webSocket, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { account, startTestDevnet } from '../utils.js'
import { type TestDevnet, call, connect, erc20, pad, sendTransfer, transferTopic } from './helpers.js'

const zeroHash = `0x${'00'.repeat(32)}`
let t: TestDevnet
let ws: Awaited<ReturnType<typeof connect>>

beforeAll(async () => {
  t = await startTestDevnet()
  ws = await connect(t.devnet.wsUrl)
})
afterAll(async () => {
  ws.close()
  await t.devnet.close()
})

describe('every method over the socket', () => {
  test('single calls, batches (with a subscription inside), errors', async () => {
    expect(await ws.call('eth_chainId')).toBe('0x7a69')
    const batch = await ws.batch([{ method: 'eth_blockNumber' }, { method: 'eth_subscribe', params: ['newHeads'] }, { method: 'nope' }])
    expect(batch[0].result).toMatch(/^0x/)
    expect(batch[1].result).toMatch(/^0x[0-9a-f]{32}$/)
    expect(batch[2].error.code).toBe(-32601)
    expect(await ws.call('eth_unsubscribe', [batch[1].result])).toBe(true)
    expect((await ws.request('eth_unsubscribe', [batch[1].result])).error).toEqual({ code: -32000, message: 'subscription not found' })
    expect((await ws.request('eth_subscribe', ['nonsense'])).error.code).toBe(-32602)
    expect((await ws.request('eth_subscribe', ['logs', { address: '0x12' }])).error.code).toBe(-32602)
  })

  test('over HTTP, eth_subscribe is refused as geth does', async () => {
    expect((await t.rpc('eth_subscribe', ['newHeads'])).error).toEqual({ code: -32601, message: 'notifications not supported' })
  })
})

describe('standard subscriptions', () => {
  test('newHeads: one header per sealed block, before the seal answers', async () => {
    const id = await ws.call('eth_subscribe', ['newHeads'])
    const sealed = await ws.call('devnet_seal')
    const heads = ws.received(id)
    expect(heads).toHaveLength(1)
    expect(heads[0]).toMatchObject({ number: sealed.number, hash: sealed.hash })
    expect(heads[0].transactions).toBeUndefined()
    expect(heads[0]).toEqual(expect.objectContaining({ parentHash: expect.any(String), timestamp: expect.any(String), logsBloom: expect.any(String) }))
    await ws.call('eth_unsubscribe', [id])
    await ws.call('devnet_seal')
    expect(ws.received(id)).toHaveLength(1)
  })

  test('logs: filtered by address and topics, one log per message, after the seal only', async () => {
    const all = await ws.call('eth_subscribe', ['logs', { address: t.devnet.token.address }])
    const toThree = await ws.call('eth_subscribe', ['logs', { topics: [transferTopic, null, pad(account(3).address)] }])
    const hashA = await sendTransfer(t, 0, 3, 7n)
    await sendTransfer(t, 1, 4, 8n)
    await ws.call('devnet_preconfirm')
    expect(ws.received(all)).toEqual([])
    const block = await ws.call('devnet_seal')
    expect(ws.received(all)).toHaveLength(2)
    expect(ws.received(toThree)).toEqual([
      expect.objectContaining({ transactionHash: hashA, blockHash: block.hash, blockNumber: block.number, removed: false, logIndex: '0x0' }),
    ])
    // The same logs as eth_getLogs returns for the block.
    expect(ws.received(all)).toEqual(await call(t, 'eth_getLogs', [{ blockHash: block.hash }]))
  })

  test('newPendingTransactions: hashes, or full transactions with `true`', async () => {
    const hashes = await ws.call('eth_subscribe', ['newPendingTransactions'])
    const full = await ws.call('eth_subscribe', ['newPendingTransactions', true])
    const hash = await sendTransfer(t, 2, 5, 1n)
    await ws.call('eth_blockNumber') // a round trip: the notifications sent before it have arrived
    expect(ws.received(hashes)).toEqual([hash])
    expect(ws.received(full)).toEqual([expect.objectContaining({ hash, from: account(2).address.toLowerCase(), blockHash: null })])
    await ws.call('devnet_seal')
  })
})

describe("Base's pre-confirmation streams", () => {
  test('pendingLogs: one log per message, only the newest pre-confirmation, with an optional filter', async () => {
    const all = await ws.call('eth_subscribe', ['pendingLogs'])
    const toSix = await ws.call('eth_subscribe', ['pendingLogs', { topics: [transferTopic, null, pad(account(6).address)] }])
    const first = await sendTransfer(t, 0, 6, 1n)
    const second = await sendTransfer(t, 1, 7, 2n)
    const tick = await ws.call('devnet_preconfirm')
    const pendingNumber = `0x${tick.number.slice(2)}`
    expect(ws.received(all).map((l) => l.transactionHash)).toEqual([first, second])
    for (const log of ws.received(all))
      expect(log).toMatchObject({ blockHash: zeroHash, blockNumber: pendingNumber, removed: false, blockTimestamp: expect.any(String) })
    expect(ws.received(toSix).map((l) => l.transactionHash)).toEqual([first])
    // The next pre-confirmation sends its delta only; log indexes continue in the block.
    const third = await sendTransfer(t, 2, 8, 3n)
    await ws.call('devnet_preconfirm')
    expect(ws.received(all).map((l) => l.transactionHash)).toEqual([first, second, third])
    expect(ws.received(all)[2].logIndex).toBe('0x2')
    expect(ws.received(all)).toEqual(await call(t, 'eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }]))
    // Sealing adds nothing to pendingLogs.
    await ws.call('devnet_seal')
    expect(ws.received(all)).toHaveLength(3)
  })

  test('newFlashblocks: the pending block after each tick; newFlashblockTransactions: hashes, or full with logs', async () => {
    const blocks = await ws.call('eth_subscribe', ['newFlashblocks'])
    const hashes = await ws.call('eth_subscribe', ['newFlashblockTransactions'])
    const full = await ws.call('eth_subscribe', ['newFlashblockTransactions', true])
    const a = await sendTransfer(t, 0, 1, 1n)
    await ws.call('devnet_preconfirm')
    const b = await sendTransfer(t, 1, 2, 1n)
    await ws.call('devnet_preconfirm')
    const flash = ws.received(blocks)
    expect(flash).toHaveLength(2)
    expect(flash[0]).toMatchObject({ hash: zeroHash, number: flash[1].number })
    expect(flash[0].transactions.map((tx: { hash: Hex }) => tx.hash)).toEqual([a])
    expect(flash[1].transactions.map((tx: { hash: Hex }) => tx.hash)).toEqual([a, b])
    expect(ws.received(hashes)).toEqual([a, b])
    const [fullA, fullB] = ws.received(full)
    expect(fullA).toMatchObject({ hash: a, blockHash: null, transactionIndex: '0x0' })
    expect(fullB).toMatchObject({ hash: b, transactionIndex: '0x1' })
    expect(fullB.logs).toEqual([expect.objectContaining({ transactionHash: b, logIndex: '0x1', blockHash: zeroHash })])
    await ws.call('devnet_seal')
  })
})

describe('viem over WebSocket and over HTTP polling', () => {
  const transports = () => ({
    ws: createPublicClient({ chain: t.devnet.chain, transport: webSocket(t.devnet.wsUrl) }),
    http: createPublicClient({ chain: t.devnet.chain, transport: http(t.devnet.url), pollingInterval: 20 }),
  })

  for (const kind of ['ws', 'http'] as const) {
    test(`watchContractEvent, watchBlocks, watchPendingTransactions (${kind})`, async () => {
      const client = transports()[kind]
      const events_ = t.devnet.node.events
      const filtersBefore = t.devnet.node.filters.size()
      const headsBefore = events_.listenerCount('newHead')
      const pendingBefore = events_.listenerCount('pendingTx')
      const events = new Promise<{ args: unknown; transactionHash: Hex }[]>((resolve) => {
        const stop = client.watchContractEvent({
          address: t.devnet.token.address,
          abi: erc20,
          eventName: 'Transfer',
          args: { to: account(9).address },
          onLogs: (logs) => {
            stop()
            resolve(logs as never)
          },
          ...(kind === 'http' ? { poll: true, pollingInterval: 20 } : {}),
        })
      })
      const seenBlocks: Hex[] = []
      const stopBlocks = client.watchBlocks({
        emitOnBegin: false,
        onBlock: (block) => void seenBlocks.push(block.hash!),
        ...(kind === 'http' ? { poll: true, pollingInterval: 20 } : {}),
      })
      const pending = new Promise<Hex[]>((resolve) => {
        const stop = client.watchPendingTransactions({
          onTransactions: (hashes) => {
            stop()
            resolve(hashes)
          },
          ...(kind === 'http' ? { poll: true, pollingInterval: 20 } : {}),
        })
      })
      // Wait until the watchers are installed (filters over HTTP, subscriptions over the socket) before the chain moves.
      const ready = () =>
        kind === 'http'
          ? t.devnet.node.filters.size() >= filtersBefore + 2
          : events_.listenerCount('newHead') >= headsBefore + 2 && events_.listenerCount('pendingTx') >= pendingBefore + 1
      for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10))
      expect(ready()).toBe(true)
      const hash = await t.walletClient.sendTransaction({
        account: account(0),
        to: t.devnet.token.address,
        data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [account(9).address, 9n] }),
        maxFeePerGas: parseGwei('10'),
        maxPriorityFeePerGas: parseGwei('1'),
        gas: 100_000n,
      })
      expect(await pending).toContain(hash)
      const sealed = await t.devnet.seal()
      const logs = await events
      expect(logs[0]!.transactionHash).toBe(hash)
      expect(logs[0]!.args).toMatchObject({ from: account(0).address, to: account(9).address, value: 9n })
      for (let i = 0; i < 500 && !seenBlocks.includes(sealed.hash); i++) await new Promise((r) => setTimeout(r, 10))
      stopBlocks()
      expect(seenBlocks).toContain(sealed.hash)
      if (kind === 'ws') await (client.transport as { getRpcClient?: () => Promise<{ close(): void }> }).getRpcClient?.().then((c) => c.close())
    })
  }
})

describe('a slow or dead client', () => {
  test('never stalls the node: a client that stops reading does not hold back seals or other clients', async () => {
    const dead = await connect(t.devnet.wsUrl)
    await dead.call('eth_subscribe', ['newFlashblocks'])
    await dead.call('eth_subscribe', ['newHeads'])
    ;(dead.socket as unknown as { _socket: { pause(): void } })._socket.pause()
    for (let i = 0; i < 20; i++) {
      await sendTransfer(t, 0, 1, 1n)
      await t.devnet.preconfirm()
      await t.devnet.seal()
    }
    expect(await ws.call('eth_blockNumber')).toBe(await call(t, 'eth_blockNumber'))
    dead.socket.terminate()
  })

  test('a connection whose unsent data passes the bound is closed, the others carry on', async () => {
    const { createDevnet } = await import('../../src/index.js')
    const { createDispatcher } = await import('../../src/rpc/dispatch.js')
    const { allMethods } = await import('../../src/rpc/registry.js')
    const { createHttpApp, listen } = await import('../../src/server/http.js')
    const { attachWebSocket } = await import('../../src/server/ws.js')
    const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, port: 0 })
    const dispatcher = createDispatcher(devnet.node, allMethods, { debug: false })
    const server = await listen(createHttpApp(dispatcher, devnet.config), devnet.config)
    const attached = attachWebSocket(server.server, dispatcher, devnet.node, { maxBufferedBytes: 256 * 1024 })
    const url = server.url.replace('http', 'ws')
    try {
      const slow = await connect(url)
      const healthy = await connect(url)
      ;(slow.socket as unknown as { _socket: { pause(): void } })._socket.pause()
      // Responses echo the id: 4 MB ids make large responses the paused client never reads.
      const big = 'x'.repeat(4 * 1024 * 1024)
      for (let i = 0; i < 4; i++) slow.socket.send(JSON.stringify({ jsonrpc: '2.0', id: `${big}${i}`, method: 'eth_chainId', params: [] }))
      for (let i = 0; i < 500 && attached.clients() > 1; i++) await new Promise((r) => setTimeout(r, 10))
      expect(attached.clients()).toBe(1)
      expect(await healthy.call('eth_chainId')).toBe('0x7a69')
      healthy.close()
      slow.socket.terminate()
    } finally {
      attached.close()
      await devnet.close()
      await server.close()
    }
  })
})

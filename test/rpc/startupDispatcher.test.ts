import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import { type Responder, type StartupDispatcher, createStartupDispatcher } from '../../src/rpc/startupDispatcher.js'
import { createHttpApp, listen } from '../../src/server/http.js'

// What a started devnet answers while its node is still being built (startDevnet listens first).
let devnet: Devnet
const chainId = 8453n
beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, chainId: Number(chainId) })
})

const respondNode = async (payload: unknown) => JSON.stringify(await devnet.requestRaw(payload))
const node: Responder = { respond: respondNode, respondText: (text) => respondNode(JSON.parse(text)) }
const request = (method: string, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method, params: [], ...extra })

/** Whether `promise` has settled once everything already queued has run. */
async function settled(promise: Promise<unknown>) {
  let done = false
  promise.then(() => (done = true), () => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

/** On the fake clock: `idle` still waits `heldMs` after it is called (`meanwhile` runs then), and has resolved `freeMs` later. */
async function expectHeld(dispatcher: StartupDispatcher, heldMs: number, freeMs: number, meanwhile?: () => void) {
  let resolved = false
  const idle = dispatcher.idle(1_000).then(() => (resolved = true))
  await vi.advanceTimersByTimeAsync(heldMs)
  meanwhile?.()
  expect(resolved).toBe(false)
  await vi.advanceTimersByTimeAsync(freeMs)
  expect(resolved).toBe(true)
  await idle
}

function gate(id: bigint | Promise<bigint> | undefined) {
  let open!: (responder: Responder) => void
  let fail!: (error: Error) => void
  const ready = new Promise<Responder>((resolve, reject) => {
    open = resolve
    fail = reject
  })
  return { dispatcher: createStartupDispatcher(id, ready), open, fail }
}

describe('startup dispatcher', () => {
  test('answers eth_chainId and net_version before the node is ready, byte for byte as the node does', async () => {
    const { dispatcher } = gate(chainId)
    for (const payload of [request('eth_chainId'), request('net_version'), request('eth_chainId', { id: 'a' }), request('eth_chainId', { id: null, params: undefined })]) {
      const early = await dispatcher.respond(payload)
      expect(early).toBe(await node.respond(payload))
    }
    expect(await dispatcher.respond(request('eth_chainId'))).toBe('{"jsonrpc":"2.0","id":7,"result":"0x2105"}')
  })

  test('everything else waits for the node and gets its answer', async () => {
    const { dispatcher, open } = gate(chainId)
    const waiting = [
      request('eth_blockNumber'),
      request('eth_getBalance', { params: [devnet.accounts[0]!.address, 'latest'] }),
      [request('eth_chainId'), request('net_version')], // a batch
      request('eth_chainId', { params: ['extra'] }), // the node's -32602
      { jsonrpc: '2.0', method: 'eth_chainId' }, // a notification: nothing to answer
      { jsonrpc: '1.0', id: 1, method: 'eth_chainId' }, // the node's -32600
      request('eth_chainId', { id: {} }),
    ]
    const answers = waiting.map((payload) => dispatcher.respond(payload))
    for (const answer of answers) expect(await settled(answer)).toBe(false)
    open(node)
    for (const [i, payload] of waiting.entries()) expect(await answers[i]).toBe(await node.respond(payload))
    // Once ready, the node answers every call, eth_chainId included.
    expect(await dispatcher.respond(request('eth_chainId'))).toBe(await node.respond(request('eth_chainId')))
  })

  test('without a chain id known in advance (fixture, geth genesis, fork), eth_chainId waits too', async () => {
    const { dispatcher, open } = gate(undefined)
    const answer = dispatcher.respond(request('eth_chainId'))
    expect(await settled(answer)).toBe(false)
    open(node)
    expect(await answer).toBe('{"jsonrpc":"2.0","id":7,"result":"0x2105"}')
  })

  test('a chain id learnt while starting (from a fork upstream or its cache): answered early from then on', async () => {
    let learn!: (id: bigint) => void
    const { dispatcher, open } = gate(new Promise<bigint>((resolve) => (learn = resolve)))
    const before = dispatcher.respond(request('eth_chainId'))
    expect(await settled(before)).toBe(false)
    learn(chainId)
    // The one asked before the chain id was known is answered when it is, not when the node is.
    expect(await before).toBe('{"jsonrpc":"2.0","id":7,"result":"0x2105"}')
    expect(await dispatcher.respond(request('net_version'))).toBe(await node.respond(request('net_version')))
    expect(await settled(dispatcher.respond(request('eth_blockNumber')))).toBe(false)
    open(node)
  })

  test('a chain id that cannot be learnt answers nothing early', async () => {
    const { dispatcher } = gate(Promise.reject(new Error('upstream down')))
    await new Promise((resolve) => setImmediate(resolve))
    expect(await settled(dispatcher.respond(request('eth_chainId')))).toBe(false)
  })

  test('when the node cannot be built, waiting requests never get an answer (the server closes instead)', async () => {
    const { dispatcher, fail } = gate(chainId)
    const answer = dispatcher.respond(request('eth_blockNumber'))
    fail(new Error('bad fixture'))
    expect(await settled(answer)).toBe(false)
  })

  test('over HTTP: the socket answers eth_chainId before the node is ready and holds the rest', async () => {
    const { dispatcher, open } = gate(chainId)
    const server = await listen(createHttpApp(dispatcher, devnet.config), { ...devnet.config, port: 0 })
    try {
      const post = (payload: unknown) =>
        fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }).then((r) => r.text())
      expect(await post(request('eth_chainId'))).toBe('{"jsonrpc":"2.0","id":7,"result":"0x2105"}')
      const blockNumber = post(request('eth_blockNumber'))
      expect(await settled(blockNumber)).toBe(false)
      open(node)
      expect(await blockNumber).toBe('{"jsonrpc":"2.0","id":7,"result":"0x0"}')
    } finally {
      await server.close()
    }
  })

  test('early reads: answered when the reader gives a value, left to the node when it gives none', async () => {
    let open!: (responder: Responder) => void
    const ready = new Promise<Responder>((resolve) => (open = resolve))
    const reader = (r: { method: string; params?: unknown }) =>
      r.method === 'eth_getBalance' ? Promise.resolve((r.params as string[])[0] === '0x01' ? '0x5' : undefined) : undefined
    const dispatcher = createStartupDispatcher(chainId, ready, reader)
    expect(await dispatcher.respond(request('eth_getBalance', { params: ['0x01', 'latest'] }))).toBe('{"jsonrpc":"2.0","id":7,"result":"0x5"}')
    // A notification is never answered early.
    const notification = dispatcher.respond({ jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x01', 'latest'] })
    const unknown = dispatcher.respond(request('eth_getBalance', { params: ['0x02', 'latest'] }))
    expect(await settled(notification)).toBe(false)
    expect(await settled(unknown)).toBe(false)
    // Once a request waits for the node, a read that comes after it waits behind it (a read pipelined behind a send).
    const behind = dispatcher.respond(request('eth_getBalance', { params: ['0x01', 'latest'] }))
    expect(await settled(behind)).toBe(false)
    open({ respond: async () => 'from the node', respondText: async () => 'from the node' })
    expect(await unknown).toBe('from the node')
    expect(await notification).toBe('from the node')
    expect(await behind).toBe('from the node')
  })

  test('idle: waits for an early read on its way (for a while: a remote upstream does not hold the loading up) and a quiet moment after its answer', async () => {
    const ready = new Promise<Responder>(() => {})
    expect(await settled(createStartupDispatcher(chainId, ready).idle(1_000))).toBe(true)
    // A clock of its own: the waits are judged on time, and a loaded machine's timers must not decide the test.
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] })
    try {
      let give!: (value: string) => void
      const dispatcher = createStartupDispatcher(chainId, ready, (r) =>
        r.method === 'eth_getBalance' ? new Promise<string>((resolve) => (give = resolve)) : undefined,
      )
      const read = dispatcher.respond(request('eth_getBalance', { params: ['0x01', 'latest'] }))
      // Still on its way after 20 ms: the loading goes on.
      await expectHeld(dispatcher, 15, 10)
      give('0x5')
      await read
      // The quiet moment after an answer (10 ms), for the client's next request.
      await expectHeld(dispatcher, 8, 4)
      // A request that waits for the node ends the wait at once.
      void dispatcher.respond(request('eth_blockNumber'))
      expect(await settled(dispatcher.idle(1_000))).toBe(true)

      // A chain id still being learnt holds the loading for 20 ms from the first request that waits for it, however often it is asked.
      const polled = createStartupDispatcher(new Promise<bigint>(() => {}), ready, () => undefined)
      void polled.respond(request('eth_chainId'))
      await expectHeld(polled, 15, 10, () => void polled.respond(request('eth_chainId')))

      // Just listening, no request yet: the loading waits 30 ms for a client's first poll.
      await expectHeld(createStartupDispatcher(chainId, ready, () => undefined), 25, 10)
      // A poll that comes meanwhile is answered at once, and the loading then waits only the quiet moment after it.
      const fresh = createStartupDispatcher(chainId, ready, () => undefined)
      await vi.advanceTimersByTimeAsync(5)
      await fresh.respond(request('eth_chainId'))
      await expectHeld(fresh, 8, 4)
    } finally {
      vi.useRealTimers()
    }
    // `urgent` ends the wait at once too.
    const other = createStartupDispatcher(chainId, ready, () => undefined)
    expect(await settled(other.idle(1_000, () => true))).toBe(true)
  })
})

afterAll(async () => {
  await devnet.close()
})

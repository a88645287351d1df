import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import WebSocket from 'ws'
import { filterTimeoutMs } from '../../src/node/filters.js'
import { startTestDevnet } from '../utils.js'

/**
 * What a long run leaves behind (issue 15, `npm run soak`): the subscriptions
 * of a closed connection leave the node, however it closed; filters nobody
 * polls expire after geth's 5 minutes, checked by moving the faked Date, not
 * by waiting.
 */
let t: Awaited<ReturnType<typeof startTestDevnet>>
beforeAll(async () => {
  t = await startTestDevnet()
})
afterAll(() => t.devnet.close())

const resources = async () => (await t.rpc('devnet_status')).result.resources as { filters: number; listeners: number }

async function open() {
  const socket = new WebSocket(t.devnet.wsUrl)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  const replies: unknown[] = []
  socket.on('message', (data) => replies.push(JSON.parse(data.toString())))
  const request = (id: number, method: string, params: unknown[]) =>
    new Promise<any>((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const reply = JSON.parse(data.toString())
        if (reply.id !== id) return
        socket.off('message', onMessage)
        resolve(reply.result)
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  return { socket, request }
}

describe('resources of closed connections', () => {
  test('behavior: subscriptions leave the node when their connection closes, cleanly or cut', async () => {
    const before = await resources()
    const clients = await Promise.all(Array.from({ length: 6 }, open))
    for (const { request } of clients) {
      await request(1, 'eth_subscribe', ['newHeads'])
      await request(2, 'eth_subscribe', ['logs', {}])
      await request(3, 'eth_subscribe', ['pendingLogs'])
    }
    // newHeads 1, logs 2 (new heads and removed blocks), pendingLogs 2 (pre-confirmations and dropped ones).
    expect((await resources()).listeners).toBe(before.listeners + 6 * 5)
    const closed = clients.map(({ socket }, i) => {
      const done = new Promise((resolve) => socket.once('close', resolve))
      if (i % 2) socket.terminate()
      else socket.close()
      return done
    })
    await Promise.all(closed)
    // The server sees the close on its side a moment later: wait for the count, not for a time.
    await expect.poll(async () => (await resources()).listeners, { timeout: 30_000, interval: 20 }).toBe(before.listeners)
  })

  test('behavior: filters installed over a connection that closed expire when unpolled for 5 minutes', async () => {
    const { node } = t.devnet
    const before = node.filters.size()
    // Only Date is faked: the node's filter deadlines move, its timers and sockets do not.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
    try {
      const { socket, request } = await open()
      const polled = await request(1, 'eth_newBlockFilter', [])
      await request(2, 'eth_newFilter', [{}])
      await request(3, 'eth_newPendingTransactionFilter', [])
      socket.close()
      expect((await resources()).filters).toBe(before + 3)
      vi.advanceTimersByTime(4 * 60_000)
      node.filters.sweep()
      expect(node.filters.size()).toBe(before + 3)
      // Polled over HTTP: it lives on past the others' deadline.
      expect(await t.rpc('eth_getFilterChanges', [polled])).toMatchObject({ result: [] })
      vi.advanceTimersByTime(filterTimeoutMs - 4 * 60_000)
      node.filters.sweep()
      expect(node.filters.size()).toBe(before + 1)
      vi.advanceTimersByTime(4 * 60_000)
      node.filters.sweep()
      expect((await resources()).filters).toBe(before)
      expect(await t.rpc('eth_getFilterChanges', [polled])).toMatchObject({ error: { code: -32000, message: 'filter not found' } })
    } finally {
      vi.useRealTimers()
    }
  })
})

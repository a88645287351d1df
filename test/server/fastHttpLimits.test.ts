import net from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Responder } from '../../src/rpc/startupDispatcher.js'
import { createHttpApp, listen } from '../../src/server/http.js'

// The HTTP server's limits on slow or oversized clients, on the fast path and on connections it handed to node:http,
// with timeouts shortened (node:http's defaults are 60 s for the head and 300 s for the request).
const reply = (text: string) => {
  const { id, method } = JSON.parse(text) as { id: number; method: string }
  return JSON.stringify({ jsonrpc: '2.0', id, result: method })
}
// `now` answers at once (as a memoized read does), anything else a turn later.
const responder: Responder = {
  respond: async (payload) => reply(JSON.stringify(payload)),
  respondText: (text) => (text.includes('"now"') ? reply(text) : Promise.resolve().then(() => reply(text))),
}
const post = (method: string, id = 1) => {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: [] })
  return `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}

/** Opens a connection, writes `text`, and resolves with everything read until the server closes it. */
function untilClosed(port: number, text: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = ''
    socket.on('data', (c) => (data += c))
    socket.on('error', reject)
    socket.on('close', () => resolve(data))
    socket.write(text)
  })
}

describe('HTTP limits', () => {
  let server: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    const options = { host: '127.0.0.1', port: 0, cors: false, bodyLimit: 1024 }
    server = await listen(createHttpApp(responder, options), { ...options, timeouts: { headersMs: 100, requestMs: 200, checkEveryMs: 50, keepAliveMs: 300 } })
  })
  afterAll(() => server?.close())

  test('error: a head that does not arrive in time gets 408 and the connection closes', async () => {
    const data = await untilClosed(server.port, 'POST / HTTP/1.1\r\nHost: x\r\n')
    expect(data).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
  })

  test('error: a body that does not arrive in time gets 408, after the answers to the complete requests before it', async () => {
    const data = await untilClosed(server.port, `${post('now', 1)}${post('later', 2)}POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"jsonrpc"`)
    expect(data.match(/"result":"\w+"/g)).toEqual(['"result":"now"', '"result":"later"'])
    expect(data.endsWith('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')).toBe(true)
  })

  test('error: a connection handed to node:http keeps its header timeout (slowloris)', async () => {
    // The GET moves the connection to node:http; the next head never completes.
    const data = await untilClosed(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n')
    expect(data.startsWith('HTTP/1.1 200 OK')).toBe(true)
    expect(data).toMatch(/HTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n\r\n$/)
  })

  test('error: a head over 16 KiB gets 431, a body over the limit 413', async () => {
    const long = await untilClosed(server.port, `POST / HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(17 * 1024)}\r\n`)
    expect(long.startsWith('HTTP/1.1 431')).toBe(true)
    const body = `{"x":"${'a'.repeat(2000)}"}`
    const large = await untilClosed(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
    expect(large.startsWith('HTTP/1.1 413')).toBe(true)
    expect(large).toMatch(/"code":-32600/)
  })

  test('behavior: an idle kept-alive connection closes after the keep-alive time, on the fast path and handed off', async () => {
    // Never before: the time from the answer to the close is at least the keep-alive time (300 ms here).
    const idle = async (text: string) => {
      const socket = net.connect(server.port, '127.0.0.1')
      let answered = 0
      socket.once('data', () => (answered = Date.now()))
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())))
      socket.write(text)
      return (await closed) - answered
    }
    const [fast, handedOff] = await Promise.all([idle(post('now')), idle('GET / HTTP/1.1\r\nHost: x\r\n\r\n')])
    expect(fast).toBeGreaterThanOrEqual(295)
    expect(handedOff).toBeGreaterThanOrEqual(295)
  })

  test('behavior: thousands of pipelined requests answered at once come back in order', async () => {
    const n = 5000
    const requests = Array.from({ length: n }, (_, i) => post(i % 2 ? 'now' : 'later', i)).join('')
    const data = await untilClosed(server.port, `${requests}GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    const ids = [...data.matchAll(/"id":(\d+)/g)].map((m) => Number(m[1]))
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i))
  })
})

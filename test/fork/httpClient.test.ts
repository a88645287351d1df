import { type Server, type Socket, createServer } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { createHttpClient } from '../../src/node/fork/httpClient.js'

/*
 * The fork upstream's plain-http client against a raw TCP server that
 * answers each request with whatever the test scripts: a Content-Length
 * reply, a chunked one, one ended by closing, an interim 100 first, bytes
 * that are not HTTP.
 */

type Request = { head: string; body: string; connection: number }

let server: Server | undefined
let clients: ReturnType<typeof createHttpClient>[] = []

afterEach(async () => {
  for (const client of clients) client.close()
  clients = []
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

/** A server that hands each complete request (head and Content-Length body) to `answer`. */
async function serve(answer: (request: Request, socket: Socket) => void) {
  const requests: Request[] = []
  let connections = 0
  let open = 0
  let mostOpen = 0
  server = createServer((socket) => {
    const connection = ++connections
    mostOpen = Math.max(mostOpen, ++open)
    socket.on('close', () => open--)
    let buffer = ''
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1')
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buffer.slice(0, end)
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        const request = { head, body: Buffer.from(buffer.slice(end + 4, end + 4 + length), 'latin1').toString('utf8'), connection }
        buffer = buffer.slice(end + 4 + length)
        requests.push(request)
        answer(request, socket)
      }
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const client = (path = '/', auth = '') => {
    const c = createHttpClient(new URL(`http://${auth}127.0.0.1:${port}${path}`), 2)
    clients.push(c)
    return c
  }
  return { requests, client, connections: () => connections, mostOpen: () => mostOpen }
}

/** 2 MB of JSON-ish text. */
const large = Buffer.from(`"${'0123456789abcdef'.repeat(2 ** 17)}"`)

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

describe('fork upstream http client', () => {
  test('behavior: POSTs the body to the path with credentials, and reuses the connection', async () => {
    const s = await serve((request, socket) => socket.write(ok(`{"echo":${request.body}}`)))
    const client = s.client('/v2/key?x=1', 'user:p%40ss@')
    expect(await client.post('{"a":1}', 1000)).toEqual({ status: 200, text: '{"echo":{"a":1}}' })
    expect(await client.post('{"ü":2}', 1000)).toEqual({ status: 200, text: '{"echo":{"ü":2}}' })
    expect(s.connections()).toBe(1)
    const head = s.requests[0]!.head
    expect(head.split('\r\n')[0]).toBe('POST /v2/key?x=1 HTTP/1.1')
    expect(head).toContain(`authorization: Basic ${Buffer.from('user:p@ss').toString('base64')}`)
    expect(head).toContain('content-type: application/json')
  })

  test('behavior: chunked replies, an interim 100, a reply ended by closing, a 204, replies of megabytes', async () => {
    const s = await serve((request, socket) => {
      if (request.body === 'chunked')
        socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n')
      if (request.body === 'chunked') setTimeout(() => socket.write('7;ext=1\r\n":"ü"}\r\n0\r\n\r\n'), 5)
      if (request.body === 'continue') socket.write(`HTTP/1.1 100 Continue\r\n\r\n${ok('"after"')}`)
      if (request.body === 'close') socket.end('HTTP/1.0 200 OK\r\n\r\n"until closed"')
      if (request.body === 'empty') socket.write('HTTP/1.1 204 No Content\r\n\r\n')
      if (request.body === 'large') {
        // 2 MB, in pieces of every size: a length-sized reply, then the same as chunks (with a trailer).
        socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${large.length}\r\n\r\n`)
        for (let at = 0; at < large.length; at += 65_521) socket.write(large.subarray(at, at + 65_521))
      }
      if (request.body === 'large chunked') {
        socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n')
        for (let at = 0; at < large.length; at += 100_003)
          socket.write(`${Math.min(100_003, large.length - at).toString(16)}\r\n${large.subarray(at, at + 100_003).toString('latin1')}\r\n`, 'latin1')
        socket.write('0\r\nx-checksum: 1\r\n\r\n')
      }
    })
    const client = s.client()
    expect(await client.post('chunked', 1000)).toEqual({ status: 200, text: '{"a":"ü"}' })
    expect(await client.post('continue', 1000)).toEqual({ status: 200, text: '"after"' })
    expect(await client.post('empty', 1000)).toEqual({ status: 204, text: '' })
    expect((await client.post('large', 5000)).text).toBe(large.toString('utf8'))
    expect((await client.post('large chunked', 5000)).text).toBe(large.toString('utf8'))
    expect(s.connections()).toBe(1)
    expect(await client.post('close', 1000)).toEqual({ status: 200, text: '"until closed"' })
    // The connection the server closed is not reused.
    expect(await client.post('continue', 1000)).toEqual({ status: 200, text: '"after"' })
    expect(s.connections()).toBe(2)
  })

  test('behavior: a kept-alive connection the server closed is replaced without an error; at most maxSockets at once', async () => {
    const s = await serve((request, socket) => {
      if (request.body === 'then close') socket.end(ok('1', 'connection: keep-alive\r\n'))
      else setTimeout(() => socket.write(ok(request.body)), 10)
    })
    const client = s.client()
    // The reply says keep-alive, but the server ends the connection right after it.
    expect((await client.post('then close', 1000)).text).toBe('1')
    await new Promise((r) => setTimeout(r, 20))
    expect((await client.post('2', 1000)).text).toBe('2')
    const replies = await Promise.all(['3', '4', '5', '6', '7'].map((n) => client.post(n, 1000)))
    expect(replies.map((r) => r.text)).toEqual(['3', '4', '5', '6', '7'])
    expect(s.mostOpen()).toBeLessThanOrEqual(2)
  })

  test('error: not HTTP, a connection closed before the reply, a timeout, a refused connection', async () => {
    const s = await serve((request, socket) => {
      if (request.body === 'garbage') socket.write('SSH-2.0-OpenSSH\r\n\r\n')
      if (request.body === 'drop') socket.destroy()
    })
    const client = s.client()
    await expect(client.post('garbage', 1000)).rejects.toThrow('malformed reply (not HTTP): "SSH-2.0-OpenSSH"')
    await expect(client.post('drop', 1000)).rejects.toThrow('connection closed before the reply')
    await expect(client.post('hang', 50)).rejects.toThrow('timed out after 50 ms')
    const { port } = server!.address() as { port: number }
    await new Promise((resolve) => server!.close(resolve))
    server = undefined
    const refused = createHttpClient(new URL(`http://127.0.0.1:${port}`), 2)
    clients.push(refused)
    await expect(refused.post('x', 1000)).rejects.toThrow(/ECONNREFUSED/)
  })
})

import net from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import { parseHead } from '../../src/server/fastHttp.js'

const chainId = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
const post = (body = chainId, extra = '') =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`

/** One raw connection: writes `parts` (one write each, in order) and resolves once `responses` complete responses arrived. */
function exchange(port: number, parts: string[], responses: number) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }[]>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    const parsed: { status: number; headers: Record<string, string>; body: string }[] = []
    socket.on('error', reject)
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk])
      for (;;) {
        const end = data.indexOf('\r\n\r\n')
        if (end < 0) break
        const [status, ...lines] = data.toString('latin1', 0, end).split('\r\n')
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
        let length = Number(headers['content-length'] ?? 0)
        let bodyStart = end + 4
        if (headers['transfer-encoding'] === 'chunked') {
          // Only node:http's empty chunked bodies (400 without Host) reach here.
          const last = data.indexOf('0\r\n\r\n', bodyStart)
          if (last < 0) break
          length = 0
          bodyStart = last + 5
        }
        if (data.length < bodyStart + length) break
        parsed.push({ status: Number(status!.split(' ')[1]), headers, body: data.toString('utf8', bodyStart, bodyStart + length) })
        data = data.subarray(bodyStart + length)
      }
      if (parsed.length >= responses) {
        socket.destroy()
        resolve(parsed)
      }
    })
    const write = (i: number) => {
      if (i >= parts.length) return
      socket.write(parts[i]!, () => setImmediate(() => write(i + 1)))
    }
    write(0)
  })
}

describe('HTTP fast path', () => {
  let devnet: StartedDevnet
  beforeAll(async () => {
    devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ui: false, bodyLimit: 2048 })
  })
  afterAll(() => devnet?.close())

  test('default: a JSON-RPC POST gets its answer with node:http-shaped headers', async () => {
    const [r] = await exchange(devnet.port, [post()], 1)
    expect(r!.status).toBe(200)
    expect(JSON.parse(r!.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(r!.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(r!.body.length),
      connection: 'keep-alive',
      'keep-alive': 'timeout=65',
      'access-control-allow-origin': '*',
    })
    expect(new Date(r!.headers.date!).getTime()).toBeGreaterThan(0)
  })

  test('behavior: pipelined requests are answered in order, a GET after them by node:http', async () => {
    const bodies = [0, 1, 2].map((i) => `{"jsonrpc":"2.0","id":${i},"method":"eth_blockNumber","params":[]}`)
    const rs = await exchange(devnet.port, [bodies.map((b) => post(b)).join('') + 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'], 4)
    expect(rs.slice(0, 3).map((r) => JSON.parse(r.body).id)).toEqual([0, 1, 2])
    expect(JSON.parse(rs[3]!.body)).toMatchObject({ name: 'devnet' })
  })

  test('behavior: a request split across writes, and UTF-8 in the body', async () => {
    const body = '{"jsonrpc":"2.0","id":"é✓","method":"eth_chainId","params":[]}'
    const whole = post(body)
    const [r] = await exchange(devnet.port, [whole.slice(0, 7), whole.slice(7, 60), whole.slice(60, -3), whole.slice(-3)], 1)
    expect(JSON.parse(r!.body)).toEqual({ jsonrpc: '2.0', id: 'é✓', result: '0x7a69' })
    expect(Number(r!.headers['content-length'])).toBe(Buffer.byteLength(r!.body))
  })

  test('behavior: a body that arrives in many pieces', async () => {
    // A batch of 20 calls, about 1.3 kB, sent 16 bytes at a time.
    const batch = JSON.stringify(Array.from({ length: 20 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })))
    const whole = post(batch)
    const parts = Array.from({ length: Math.ceil(whole.length / 16) }, (_, i) => whole.slice(16 * i, 16 * i + 16))
    const [r] = await exchange(devnet.port, parts, 1)
    expect((JSON.parse(r!.body) as { id: number }[]).map((x) => x.id)).toEqual(Array.from({ length: 20 }, (_, i) => i))
  })

  test('behavior: a client that ends its side after sending still gets its answers', async () => {
    const socket = net.connect(devnet.port, '127.0.0.1')
    let data = ''
    socket.on('data', (c) => (data += c))
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.end(post() + post())
    await closed
    expect(data.match(/"result":"0x7a69"/g)).toHaveLength(2)
  })

  test('behavior: a notification gets 204, bad JSON -32700', async () => {
    const rs = await exchange(devnet.port, [post('{"jsonrpc":"2.0","method":"eth_chainId"}') + post('{nope')], 2)
    expect(rs[0]).toMatchObject({ status: 204, body: '' })
    expect(rs[0]!.headers['content-length']).toBeUndefined()
    expect(JSON.parse(rs[1]!.body)).toMatchObject({ error: { code: -32700 } })
  })

  test('behavior: what the fast path does not take is node:http answers, on the same connection', async () => {
    const body = chainId
    const chunked = `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
    // A fast-path request first, then a chunked one: the connection moves to node:http and keeps answering.
    const rs = await exchange(devnet.port, [post(), chunked, post()], 3)
    expect(rs.map((r) => [r.status, JSON.parse(r.body).result])).toEqual([[200, '0x7a69'], [200, '0x7a69'], [200, '0x7a69']])
    const [tooLarge] = await exchange(devnet.port, [post(`{"x":"${'a'.repeat(3000)}"}`)], 1)
    expect(tooLarge!.status).toBe(413)
    expect(JSON.parse(tooLarge!.body)).toMatchObject({ error: { code: -32600 } })
    const [old] = await exchange(devnet.port, [`POST / HTTP/1.0\r\nContent-Length: ${body.length}\r\n\r\n${body}`], 1)
    expect(old).toMatchObject({ status: 200, headers: { connection: 'close' } })
    const [noHost] = await exchange(devnet.port, [`POST / HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`], 1)
    expect(noHost!.status).toBe(400)
    const [options] = await exchange(devnet.port, ['OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n'], 1)
    expect(options!.status).toBe(204)
  })

  test('behavior: WebSocket upgrades and fetch still work', async () => {
    const response = await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chainId })
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    const { WebSocket } = await import('ws')
    const ws = new WebSocket(devnet.wsUrl)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    ws.send(chainId)
    const message = await new Promise((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))))
    expect(message).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    ws.close()
  })

  test('behavior: close ends kept-alive connections, fast and handed off', async () => {
    const other = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ui: false })
    const open = (text: string) =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(other.port, '127.0.0.1')
        socket.once('data', () => resolve(socket))
        socket.write(text)
      })
    const fast = await open(post())
    const handedOff = await open('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    const closed = (s: net.Socket) => new Promise<void>((resolve) => s.once('close', () => resolve()))
    await Promise.all([other.close(), closed(fast), closed(handedOff)])
  })
})

describe('parseHead', () => {
  const ok = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5'
  test('takes POST / HTTP/1.1 with a Host and one Content-Length', () => {
    expect(parseHead(ok, 10)).toEqual({ length: 5 })
    expect(parseHead('POST / HTTP/1.1\r\nhost: x\r\ncontent-length:  7 \r\nConnection: keep-alive', 10)).toEqual({ length: 7 })
  })
  test.each([
    ['GET', ok.replace('POST', 'GET')],
    ['another path', ok.replace('POST /', 'POST /x')],
    ['HTTP/1.0', ok.replace('1.1', '1.0')],
    ['no Host', 'POST / HTTP/1.1\r\nContent-Length: 5'],
    ['no Content-Length', 'POST / HTTP/1.1\r\nHost: x'],
    ['two Content-Lengths', `${ok}\r\nContent-Length: 5`],
    ['a non-numeric length', ok.replace('5', '5x')],
    ['over the limit', ok.replace('5', '11')],
    ['Transfer-Encoding', `${ok}\r\nTransfer-Encoding: chunked`],
    ['Expect', `${ok}\r\nExpect: 100-continue`],
    ['Upgrade', `${ok}\r\nUpgrade: websocket`],
    ['Connection: close', `${ok}\r\nConnection: close`],
    ['a folded line', `${ok}\r\n  folded`],
    ['a bad header name', `${ok}\r\nBad Name: x`],
  ])('leaves to node:http: %s', (_, head) => {
    expect(parseHead(head, 10)).toBeUndefined()
  })
})

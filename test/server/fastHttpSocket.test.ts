import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { type FastPathOptions, type PostAnswer, serveFast } from '../../src/server/fastHttp.js'

// serveFast against a stand-in socket that records what is written and how, under fake timers: what one write per
// batch of answers, the encoding chosen and the idle timer do, without a network or a wall clock.

/** The socket calls serveFast makes, recorded. */
class FakeSocket extends EventEmitter {
  destroyed = false
  paused = false
  full = false
  writes: { text: string; encoding: string }[] = []
  events: string[] = []
  write(text: string, encoding: string) {
    this.writes.push({ text, encoding })
    this.events.push('write')
    return !this.full
  }
  isPaused = () => this.paused
  pause = () => void (this.paused = true)
  resume = () => void (this.paused = false)
  end = () => void this.events.push('end')
  destroy = () => void (this.destroyed = true)
}

const post = (body: string) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
const request = (id: number) => post(`{"jsonrpc":"2.0","id":${id},"method":"m","params":[]}`)
const bodies = (text: string) => [...text.matchAll(/\r\n\r\n(\{[^}]*\})/g)].map((m) => m[1])

function serve(answer: FastPathOptions['answer'] = (text) => ({ status: 200, body: text.replace('"method":"m"', '"result":1') })) {
  const socket = new FakeSocket()
  const handOffs: (Buffer | undefined)[] = []
  serveFast(socket as unknown as Socket, {
    answer,
    bodyLimit: 1024,
    extraHeaders: '',
    keepAliveMs: 65_000,
    headersTimeoutMs: 60_000,
    requestTimeoutMs: 300_000,
    handOff: (_, unread) => {
      socket.events.push('handOff')
      handOffs.push(unread)
    },
  })
  const send = (text: string) => socket.emit('data', Buffer.from(text))
  return { socket, send, handOffs }
}

describe('serveFast on a socket', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('behavior: pipelined requests that arrive together are answered in one write, in order', () => {
    const { socket, send } = serve()
    send(request(1) + request(2) + request(3))
    expect(socket.writes).toHaveLength(1)
    expect(bodies(socket.writes[0]!.text)).toEqual([1, 2, 3].map((id) => `{"jsonrpc":"2.0","id":${id},"result":1,"params":[]}`))
    send(request(4))
    expect(socket.writes).toHaveLength(2)
  })

  test('behavior: an answer computed later goes out after the ones written before it, and those do not wait for it', async () => {
    let settle!: (answer: PostAnswer) => void
    const { socket, send } = serve((text) =>
      text.includes('"id":2') ? new Promise((resolve) => (settle = resolve)) : { status: 200, body: text },
    )
    send(request(1) + request(2) + request(3))
    expect(socket.writes.map((w) => bodies(w.text).length)).toEqual([1])
    settle({ status: 200, body: '{"id":2}' })
    await Promise.resolve()
    await Promise.resolve()
    expect(socket.writes.flatMap((w) => bodies(w.text).map((b) => JSON.parse(b!).id))).toEqual([1, 2, 3])
  })

  test('behavior: ASCII answers are written as latin1, any other as UTF-8 with its length in bytes', () => {
    const { socket, send } = serve((text) => ({ status: 200, body: text.includes('"id":2') ? '{"r":"é✓"}' : '{"r":"a"}' }))
    send(request(1))
    send(request(2))
    expect(socket.writes.map((w) => w.encoding)).toEqual(['latin1', 'utf8'])
    expect(socket.writes[1]!.text).toContain(`Content-Length: ${Buffer.byteLength('{"r":"é✓"}')}\r\n`)
    // A 204 (notification) has no body and no length.
    const other = serve(() => ({ status: 204, body: undefined }))
    other.send(request(3))
    expect(other.socket.writes[0]).toMatchObject({ encoding: 'latin1' })
    expect(other.socket.writes[0]!.text).toMatch(/^HTTP\/1\.1 204 No Content\r\nDate: .*\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n$/)
  })

  test('behavior: answers gathered before a request node:http takes are written before the hand-off', () => {
    const { socket, send, handOffs } = serve()
    send(`${request(1)}GET / HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(socket.events).toEqual(['write', 'handOff'])
    expect(handOffs[0]!.toString()).toBe('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
  })

  test('behavior: a full socket buffer stops reading until it drains', () => {
    const { socket, send } = serve()
    socket.full = true
    send(request(1) + request(2))
    expect(socket.writes).toHaveLength(1)
    expect(socket.paused).toBe(true)
    // Gathered answers past the first few kilobytes go out in more writes; here two small ones went in one.
    expect(bodies(socket.writes[0]!.text)).toHaveLength(2)
    socket.full = false
    send(request(3))
    expect(socket.writes).toHaveLength(1)
    socket.emit('drain')
    expect(socket.writes).toHaveLength(2)
    expect(socket.paused).toBe(false)
  })

  test('behavior: thousands of pipelined answers go out in writes of a few kilobytes', () => {
    const { socket, send } = serve()
    send(Array.from({ length: 1000 }, (_, i) => request(i)).join(''))
    const ids = socket.writes.flatMap((w) => bodies(w.text).map((b) => JSON.parse(b!).id))
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i))
    expect(socket.writes.length).toBeGreaterThan(10)
    expect(Math.max(...socket.writes.map((w) => w.text.length))).toBeLessThan(10 * 1024)
  })

  test('behavior: an idle connection closes 65 s after its last answer, one that keeps asking stays', () => {
    const { socket, send } = serve()
    vi.advanceTimersByTime(30_000)
    send(request(1))
    vi.advanceTimersByTime(60_000)
    expect(socket.destroyed).toBe(false)
    vi.advanceTimersByTime(5_000)
    expect(socket.destroyed).toBe(true)
    // Never asked anything: 65 s after it connected.
    const quiet = serve()
    vi.advanceTimersByTime(64_999)
    expect(quiet.socket.destroyed).toBe(false)
    vi.advanceTimersByTime(1)
    expect(quiet.socket.destroyed).toBe(true)
  })

  test('behavior: a call longer than the keep-alive time is not cut, and the idle time starts at its answer', async () => {
    let settle!: (answer: PostAnswer) => void
    const { socket, send } = serve(() => new Promise((resolve) => (settle = resolve)))
    send(request(1))
    vi.advanceTimersByTime(200_000)
    expect(socket.destroyed).toBe(false)
    settle({ status: 200, body: '{}' })
    await Promise.resolve()
    await Promise.resolve()
    expect(socket.writes).toHaveLength(1)
    vi.advanceTimersByTime(64_000)
    expect(socket.destroyed).toBe(false)
    vi.advanceTimersByTime(1_000)
    expect(socket.destroyed).toBe(true)
  })

  test('behavior: a client that reads none of its answers is cut after the keep-alive time; one that drains is not', () => {
    const { socket, send } = serve()
    socket.full = true
    send(request(1))
    vi.advanceTimersByTime(60_000)
    socket.full = false
    socket.emit('drain')
    vi.advanceTimersByTime(60_000)
    expect(socket.destroyed).toBe(false)
    socket.full = true
    send(request(2))
    vi.advanceTimersByTime(65_000)
    expect(socket.destroyed).toBe(true)
  })

  test('behavior: a connection handed to node:http is no longer the idle timer\'s', () => {
    const { socket, send } = serve()
    send('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    vi.advanceTimersByTime(200_000)
    expect(socket.destroyed).toBe(false)
    expect(socket.listenerCount('data')).toBe(0)
  })
})

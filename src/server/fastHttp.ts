import type { Socket } from 'node:net'

/** What the fast path answers a JSON-RPC POST with: a status and a JSON body (none for 204). */
export type PostAnswer = { status: number; body: string | undefined }

export type FastPathOptions = {
  /** Answers the body of a POST / (the same function node:http's listener uses). */
  answer(text: string): Promise<PostAnswer>
  /** Largest body the fast path takes; a larger one goes to node:http, which answers 413. */
  bodyLimit: number
  /** Header lines every response carries besides the fixed ones (CORS), each ending in CRLF. */
  extraHeaders: string
  /** Seconds an idle connection is kept (node:http's keepAliveTimeout). */
  keepAliveSeconds: number
  /** Gives the connection to node:http, with the bytes read so far put back: anything the fast path does not take. */
  handOff(socket: Socket, unread: Buffer | undefined): void
}

const reasons: Record<number, string> = { 200: 'OK', 204: 'No Content', 500: 'Internal Server Error' }
const maxHeaderBytes = 16 * 1024
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

let dateSecond = -1
let dateText = ''
/** The Date header value, formatted once a second as node:http does. */
const httpDate = () => {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(second * 1000).toUTCString()
  }
  return dateText
}

/**
 * The head of one request the fast path takes, or undefined: `POST /
 * HTTP/1.1` with a Host and one Content-Length within the limit, and no
 * Transfer-Encoding, Expect, Upgrade or `Connection: close`. What a JSON-RPC
 * client sends on a kept-alive connection; every other request (GETs, CORS
 * preflights, chunked or oversized bodies, WebSocket upgrades, HTTP/1.0,
 * malformed heads) is node:http's.
 */
export function parseHead(head: string, bodyLimit: number): { length: number } | undefined {
  const lines = head.split('\r\n')
  if (lines[0] !== 'POST / HTTP/1.1') return undefined
  let length: number | undefined
  let host = false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    if (colon <= 0) return undefined
    const name = line.slice(0, colon)
    if (!token.test(name)) return undefined
    switch (name.toLowerCase()) {
      case 'content-length': {
        const value = line.slice(colon + 1).trim()
        if (length !== undefined || !/^\d{1,15}$/.test(value)) return undefined
        length = Number(value)
        break
      }
      case 'host':
        host = true
        break
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined
      case 'connection':
        if (/close|upgrade/i.test(line.slice(colon + 1))) return undefined
        break
    }
  }
  // node:http refuses an HTTP/1.1 request without Host (400): it answers those itself.
  if (!host || length === undefined || length > bodyLimit) return undefined
  return { length }
}

/** The whole response: status line, headers and body, written in one call. */
function response(status: number, body: string | undefined, options: FastPathOptions): string {
  const head = `HTTP/1.1 ${status} ${reasons[status] ?? ''}\r\n${options.extraHeaders}`
  const keep = `Date: ${httpDate()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${options.keepAliveSeconds}\r\n\r\n`
  if (body === undefined) return head + keep
  return `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${keep}${body}`
}

/**
 * Serves JSON-RPC POSTs on one connection without node:http's request and
 * response objects, which cost as much again as the whole of an
 * eth_getBalance: the head is read from the bytes, the body handed to
 * `answer`, and the response written as one string. Requests are answered
 * one after another, in order (pipelined ones wait their turn). The first
 * request the fast path does not take, and the rest of the connection with
 * it, goes to node:http (`handOff`), so every other case keeps node:http's
 * behaviour. The socket must allow half-open connections (as node:http's
 * do): a client that ends its side after sending still gets its answer.
 */
export function serveFast(socket: Socket, options: FastPathOptions) {
  // Unread bytes as they arrived: a large body is joined once, when whole, not once per chunk.
  let chunks: Buffer[] = []
  let total = 0
  // The request whose head is read: where its body starts and ends.
  let body: { start: number; end: number } | undefined
  let busy = false
  let ended = false
  let handedOff = false

  const joined = () => {
    if (chunks.length > 1) chunks = [Buffer.concat(chunks, total)]
    return chunks[0]!
  }
  const onData = (chunk: Buffer) => {
    chunks.push(chunk)
    total += chunk.length
    if (!busy) next()
  }
  const onEnd = () => {
    ended = true
    if (!busy) socket.end()
  }
  // Idle only between requests: a call that runs longer than the keep-alive time is not cut.
  const idle = () => socket.setTimeout(options.keepAliveSeconds * 1000)
  const onTimeout = () => socket.destroy()
  const onError = () => socket.destroy()
  socket.on('data', onData)
  socket.on('end', onEnd)
  socket.on('error', onError)
  socket.on('timeout', onTimeout)
  idle()

  const handOff = () => {
    handedOff = true
    socket.off('data', onData)
    socket.off('end', onEnd)
    socket.off('error', onError)
    socket.off('timeout', onTimeout)
    socket.setTimeout(0)
    const unread = total > 0 ? joined() : undefined
    chunks = []
    total = 0
    options.handOff(socket, unread)
  }

  const finish = (status: number, text: string | undefined) => {
    busy = false
    if (socket.destroyed) return
    const flushed = socket.write(response(status, text, options))
    idle()
    if (ended) {
      // The client has sent all it will: answer what is complete, then close our side.
      next()
      if (!busy && !handedOff) socket.end()
      return
    }
    // A client that sends without reading its answers is read no further until it catches up.
    if (!flushed) {
      socket.pause()
      socket.once('drain', () => {
        socket.resume()
        if (!busy) next()
      })
    } else next()
  }

  // Takes the next complete request in the buffer, if any.
  const next = () => {
    if (total === 0 || socket.destroyed) return
    if (body === undefined) {
      const bytes = joined()
      const end = bytes.indexOf('\r\n\r\n')
      if (end < 0) {
        if (total > maxHeaderBytes) handOff()
        return
      }
      const head = parseHead(bytes.toString('latin1', 0, end), options.bodyLimit)
      if (!head) return handOff()
      body = { start: end + 4, end: end + 4 + head.length }
    }
    if (total < body.end) return
    const bytes = joined()
    const text = bytes.toString('utf8', body.start, body.end)
    const rest = bytes.subarray(body.end)
    chunks = rest.length > 0 ? [rest] : []
    total = rest.length
    body = undefined
    busy = true
    socket.setTimeout(0)
    options.answer(text).then(
      (answer) => finish(answer.status, answer.body),
      () => socket.destroy(),
    )
  }
}

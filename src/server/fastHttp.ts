import type { Socket } from 'node:net'
import { httpDate as formatHttpDate } from './httpDate.js'

/** What the fast path answers a JSON-RPC POST with: a status and a JSON body (none for 204). */
export type PostAnswer = { status: number; body: string | undefined }

export type FastPathOptions = {
  /** Answers the body of a POST / (the same function node:http's listener uses); at once when it can. */
  answer(text: string): PostAnswer | Promise<PostAnswer>
  /** Largest body the fast path takes; a larger one goes to node:http, which answers 413. */
  bodyLimit: number
  /** Header lines every response carries besides the fixed ones (CORS), each ending in CRLF. */
  extraHeaders: string
  /** Milliseconds an idle connection is kept after its last answer (node:http's keepAliveTimeout). */
  keepAliveMs: number
  /** Milliseconds a request's head may take from its first byte (node:http's headersTimeout). */
  headersTimeoutMs: number
  /** Milliseconds a whole request may take from its first byte (node:http's requestTimeout). */
  requestTimeoutMs: number
  /** Gives the connection to node:http, with the bytes read so far put back: anything the fast path does not take. */
  handOff(socket: Socket, unread: Buffer | undefined): void
}

const reasons: Record<number, string> = { 200: 'OK', 204: 'No Content', 500: 'Internal Server Error' }
/** node:http's default --max-http-header-size: a longer head goes to node:http, which answers 431. */
const maxHeaderBytes = 16 * 1024
/** What node:http writes before closing a connection whose request did not arrive in time. */
const requestTimeoutResponse = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const headEnd = Buffer.from('\r\n\r\n')
/** Answers to pipelined requests are gathered into one write up to this many characters. */
const gatherChars = 8 * 1024

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

/** The Date header's value, formatted once a second for every connection. */
let dateSecond = -1
let dateValue = ''
const httpDate = (nowMs: number) => {
  const second = Math.floor(nowMs / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateValue = formatHttpDate(second * 1000)
  }
  return dateValue
}

/**
 * Writes whole responses (status line, headers and body) as one string: the
 * part before the length is built once per connection, the Date once a
 * second.
 */
function responses(options: FastPathOptions) {
  const prefix = (status: number) => `HTTP/1.1 ${status} ${reasons[status] ?? ''}\r\n${options.extraHeaders}`
  const json = `${prefix(200)}Content-Type: application/json\r\nContent-Length: `
  const keepAlive = `\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveMs / 1000)}\r\n\r\n`
  /** `bytes`: the body's length in UTF-8. */
  return (status: number, body: string | undefined, bytes: number, nowMs: number): string => {
    if (body === undefined) return `${prefix(status)}Date: ${httpDate(nowMs)}${keepAlive}`
    const head = status === 200 ? json : `${prefix(status)}Content-Type: application/json\r\nContent-Length: `
    return `${head}${bytes}\r\nDate: ${httpDate(nowMs)}${keepAlive}${body}`
  }
}

/**
 * Serves JSON-RPC POSTs on one connection without node:http's request and
 * response objects, which cost as much again as the whole of an
 * eth_getBalance: the head is read from the bytes, the body handed to
 * `answer`, and the response written as one string (at once, in the same
 * turn, when `answer` has it at once). Requests are answered one after
 * another, in order (pipelined ones wait their turn, and the answers to the
 * ones that arrived together go out in one write). The first request the
 * fast path does not take, and the rest of the connection with it, goes to
 * node:http (`handOff`), so every other case keeps node:http's behaviour. The
 * socket must allow half-open connections (as node:http's do): a client that
 * ends its side after sending still gets its answer.
 *
 * The limits are node:http's: a request whose head has not arrived
 * `headersTimeoutMs` after its first byte, or whose body has not arrived
 * `requestTimeoutMs` after it, gets 408 and the connection is closed (a
 * client trickling bytes keeps no connection forever); a connection idle
 * `keepAliveMs` after its last answer closes; a head over 16 KiB or a body
 * over the limit goes to node:http (431, 413). A client that sends while its
 * answer is being computed is read no further past one request's worth of
 * bytes.
 *
 * What a request costs here besides the answer is what node's socket costs:
 * one read and one write, the stream bookkeeping around them, and nothing
 * per request on the timers (socket.setTimeout would move its timer on every
 * read and write).
 */
export function serveFast(socket: Socket, options: FastPathOptions) {
  const respond = responses(options)
  // Unread bytes as they arrived: a large body is joined once, when whole, not once per chunk.
  let chunks: Buffer[] = []
  let total = 0
  // The request whose head is read: where its body starts and ends (-1: no head read yet).
  let bodyStart = -1
  let bodyEnd = 0
  // An answer is being computed; the socket's buffer is full.
  let busy = false
  let waiting = false
  let ended = false
  let handedOff = false
  // A request partly received, when its first byte was read, and the timer that checks on it.
  let partial = false
  let started = 0
  let deadline: NodeJS.Timeout | undefined
  // The last head taken (its final CRLF CRLF included) and its body length: a client sends the same head again and
  // again (the length changes only with the body's), and comparing bytes costs a tenth of reading the head again.
  let lastHead: Buffer | undefined
  let lastLength = 0
  // Answers not yet written, and whether they are all ASCII (then written as latin1: no UTF-8 encoding pass).
  let out = ''
  let outAscii = true
  // When the last answer was written: an idle connection closes keepAliveMs after it.
  let lastAnswer = Date.now()
  let idleTimer: NodeJS.Timeout | undefined
  const bufferLimit = maxHeaderBytes + options.bodyLimit

  const joined = () => {
    if (chunks.length > 1) chunks = [Buffer.concat(chunks, total)]
    return chunks[0]!
  }
  const onData = (chunk: Buffer) => {
    chunks.push(chunk)
    total += chunk.length
    if (!busy && !waiting) next()
    else if (total > bufferLimit) socket.pause()
  }
  const onEnd = () => {
    ended = true
    if (!busy && !waiting) next()
  }
  const onError = () => socket.destroy()
  // One timer for the connection's life, re-armed only when it fires: it closes the connection when no answer was
  // written (or drained to a client that had stopped reading) for keepAliveMs and no call is running and no request
  // is arriving (a call longer than that is not cut; a request in progress is `deadline`'s). As with the socket
  // timeout it replaces, a client that reads none of its answers for that long is cut.
  const checkIdle = () => {
    idleTimer = undefined
    if (handedOff || socket.destroyed) return
    const left = lastAnswer + options.keepAliveMs - Date.now()
    if (left <= 0 && !busy && total === 0) return void socket.destroy()
    idleTimer = setTimeout(checkIdle, left > 0 ? left : options.keepAliveMs).unref()
  }
  socket.on('data', onData)
  socket.on('end', onEnd)
  socket.on('error', onError)
  socket.once('close', () => clearTimeout(idleTimer))
  idleTimer = setTimeout(checkIdle, options.keepAliveMs).unref()

  // A request whose bytes came in pieces (a head and body written apart) only notes its start: the timer, once
  // armed, checks on whichever request is partial when it fires and is not re-armed per request.
  const stopDeadline = () => {
    partial = false
  }
  // The head must be whole headersTimeoutMs after the request's first byte, the body requestTimeoutMs after it.
  const checkDeadline = () => {
    deadline = undefined
    if (!partial || busy || socket.destroyed) return
    const limit = bodyStart < 0 ? options.headersTimeoutMs : options.requestTimeoutMs
    const left = started + limit - Date.now()
    if (left > 0) {
      deadline = setTimeout(checkDeadline, left).unref()
      return
    }
    chunks = []
    total = 0
    socket.off('data', onData)
    socket.end(requestTimeoutResponse, () => socket.destroy())
  }
  const startDeadline = () => {
    if (partial) return
    partial = true
    started = Date.now()
    deadline ??= setTimeout(checkDeadline, Math.min(options.headersTimeoutMs, options.requestTimeoutMs)).unref()
  }

  const handOff = () => {
    // The answers gathered so far go first: node:http's come after them on the same socket.
    flush()
    handedOff = true
    stopDeadline()
    clearTimeout(deadline)
    clearTimeout(idleTimer)
    socket.off('data', onData)
    socket.off('end', onEnd)
    socket.off('error', onError)
    const unread = total > 0 ? joined() : undefined
    chunks = []
    total = 0
    options.handOff(socket, unread)
  }

  const gather = (answer: PostAnswer) => {
    const now = Date.now()
    lastAnswer = now
    const { status, body } = answer
    const bytes = body === undefined ? 0 : Buffer.byteLength(body)
    // A body as long in bytes as in characters is ASCII.
    if (bytes !== (body?.length ?? 0)) outAscii = false
    out += respond(status, body, bytes, now)
  }
  // Writes the gathered answers; false when the socket's buffer is full: a client that sends without reading its
  // answers is read no further until it catches up.
  const flush = () => {
    if (out === '') return true
    const written = socket.write(out, outAscii ? 'latin1' : 'utf8')
    out = ''
    outAscii = true
    if (written) return true
    waiting = true
    socket.pause()
    socket.once('drain', () => {
      waiting = false
      lastAnswer = Date.now()
      next()
    })
    return false
  }
  const finish = (answer: PostAnswer) => {
    busy = false
    if (socket.destroyed) return
    gather(answer)
    if (flush()) next()
  }
  const fail = () => socket.destroy()

  // Reads the head of the next request; false when there is none yet (or the connection went to node:http).
  const readHead = () => {
    const bytes = joined()
    // The connection's last head again (a client's usual case): one comparison, no search or parse.
    if (lastHead !== undefined && total >= lastHead.length && bytes.compare(lastHead, 0, lastHead.length, 0, lastHead.length) === 0) {
      bodyStart = lastHead.length
      bodyEnd = bodyStart + lastLength
      return true
    }
    const end = bytes.indexOf(headEnd)
    if (end < 0) {
      if (total > maxHeaderBytes) handOff()
      else startDeadline()
      return false
    }
    const head = parseHead(bytes.toString('latin1', 0, end), options.bodyLimit)
    if (!head) {
      handOff()
      return false
    }
    lastHead = Buffer.from(bytes.subarray(0, end + 4))
    lastLength = head.length
    bodyStart = end + 4
    bodyEnd = bodyStart + head.length
    return true
  }

  // Answers the complete requests in the buffer, in order; a loop, not recursion, for answers that come at once.
  // Their answers are gathered and written together when the loop stops (or a few kilobytes are gathered).
  const take = () => {
    while (total > 0 && !busy && !waiting && !handedOff && !socket.destroyed) {
      if (bodyStart < 0 && !readHead()) break
      if (total < bodyEnd) {
        startDeadline()
        break
      }
      stopDeadline()
      const bytes = joined()
      const text = bytes.toString('utf8', bodyStart, bodyEnd)
      if (bodyEnd === total) chunks.length = 0
      else chunks = [bytes.subarray(bodyEnd)]
      total -= bodyEnd
      bodyStart = -1
      const answer = options.answer(text)
      if (answer instanceof Promise) {
        busy = true
        answer.then(finish, fail)
        break
      }
      gather(answer)
      if (out.length >= gatherChars && !flush()) break
    }
    if (!handedOff) flush()
  }
  const next = () => {
    take()
    if (busy || waiting || handedOff || socket.destroyed) return
    // The client has sent all it will: what was complete is answered; close our side.
    if (ended) {
      stopDeadline()
      socket.end()
    } else if (socket.isPaused()) socket.resume()
  }
}

import { type Socket, connect } from 'node:net'

/** An HTTP reply as the fork's upstream client reads it. */
export type HttpReply = { status: number; text: string }

/** Longest response head read before the reply is taken for something other than HTTP. */
const maxHeadBytes = 64 * 1024

/**
 * A plain-http client for a fork's upstream: POSTs a JSON body over
 * kept-alive TCP connections (at most `maxSockets` at once, the others wait
 * for one) and reads the reply, sized by Content-Length, chunked, or ended
 * by the server closing the connection.
 *
 * Not node:http: each request there builds a ClientRequest, goes through
 * the agent's bookkeeping, writable streams and the parser's callbacks. A
 * token transfer on a fork to a new recipient makes one upstream read (its
 * balance slot), one after the other, so that cost is paid per transfer.
 * Sequential eth_getStorageAt reads through remote.ts to a devnet process
 * cost 0.46 ms of CPU each over node:http in a fresh process (the first
 * thousand), 0.24 ms here; 0.13 against 0.07 ms by the third thousand
 * (medians of three alternated runs, loaded machine).
 *
 * https stays on node:https (remote.ts): there TLS and the network dominate.
 */
export function createHttpClient(target: URL, maxSockets: number) {
  // URL keeps an IPv6 literal's brackets, which the socket must not get.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const port = Number(target.port || 80)
  const credentials =
    target.username || target.password
      ? `authorization: Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}\r\n`
      : ''
  const head = `POST ${target.pathname || '/'}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\n${credentials}content-length: `
  /** Every open socket (in use or idle), so close() ends them all. */
  const sockets = new Set<Socket>()
  const idle: Socket[] = []
  const waiting: (() => void)[] = []
  let closed = false

  /** An idle socket the server closes (or breaks) leaves the pool. */
  const dropIdle = function (this: Socket) {
    const i = idle.indexOf(this)
    if (i >= 0) idle.splice(i, 1)
    forget(this)
  }
  function forget(socket: Socket) {
    socket.destroy()
    if (sockets.delete(socket)) waiting.shift()?.()
  }
  function park(socket: Socket) {
    if (closed || socket.destroyed) return forget(socket)
    socket.on('end', dropIdle).on('close', dropIdle).on('error', dropIdle).on('data', dropIdle)
    // As node:http's agent does: an idle connection does not keep the process alive.
    socket.unref()
    idle.push(socket)
    waiting.shift()?.()
  }
  function unpark(socket: Socket) {
    socket.off('end', dropIdle).off('close', dropIdle).off('error', dropIdle).off('data', dropIdle)
    socket.ref()
  }

  /** An idle connection, or a new one when fewer than `maxSockets` are open; waits otherwise. */
  async function acquire(): Promise<{ socket: Socket; reused: boolean }> {
    for (;;) {
      if (closed) throw new Error('client closed')
      const socket = idle.pop()
      if (socket) {
        unpark(socket)
        return { socket, reused: true }
      }
      if (sockets.size < maxSockets) {
        const created = connect({ host, port, noDelay: true })
        sockets.add(created)
        return { socket: created, reused: false }
      }
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }

  /** One request on `socket`. A failure carries `started` (whether any reply byte had come) and `timedOut`. */
  function exchange(socket: Socket, request: string, timeoutMs: number): Promise<{ reply: HttpReply; keep: boolean }> {
    return new Promise((resolve, reject) => {
      const reader = createReplyReader()
      let started = false
      const done = (error: Error | undefined, result?: { reply: HttpReply; keep: boolean }) => {
        clearTimeout(timer)
        socket.off('data', onData).off('end', onEnd).off('error', onError).off('close', onEnd)
        if (error) reject(Object.assign(error, { started }))
        else resolve(result!)
      }
      const timer = setTimeout(() => {
        socket.destroy()
        done(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { timedOut: true }))
      }, timeoutMs)
      const onError = (error: Error) => done(error)
      const onEnd = () => {
        const result = reader.end()
        if (result) return done(undefined, result)
        done(new Error(started ? 'connection closed in the middle of the reply' : 'connection closed before the reply'))
      }
      const onData = (chunk: Buffer) => {
        started = true
        try {
          const result = reader.push(chunk)
          if (result) done(undefined, result)
        } catch (error) {
          socket.destroy()
          done(error as Error)
        }
      }
      socket.on('data', onData).on('end', onEnd).on('error', onError).on('close', onEnd)
      socket.write(request)
    })
  }

  return {
    /**
     * POSTs `data` and resolves to the reply. A kept-alive connection the
     * server had closed before any reply byte came is replaced by a new one
     * at once (the reads are idempotent), as node:http's agent would.
     */
    async post(data: string, timeoutMs: number): Promise<HttpReply> {
      const request = `${head}${Buffer.byteLength(data)}\r\n\r\n${data}`
      for (;;) {
        const { socket, reused } = await acquire()
        try {
          const { reply, keep } = await exchange(socket, request, timeoutMs)
          if (keep) park(socket)
          else forget(socket)
          return reply
        } catch (error) {
          forget(socket)
          const e = error as Error & { started?: boolean; timedOut?: boolean }
          if (reused && !e.started && !e.timedOut && !closed) continue
          throw error
        }
      }
    },
    /** Ends every connection; requests in flight fail. */
    close() {
      closed = true
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      idle.length = 0
      for (const wake of waiting.splice(0)) wake()
    },
  }
}

/**
 * Reads one HTTP/1.1 reply from the bytes pushed in: the head (interim 1xx
 * replies skipped), then a body sized by Content-Length, chunked, or ended
 * by the connection's end. Body bytes are kept as the chunks they came in
 * and joined once, so a reply of many megabytes (a trace) costs no more
 * than its size to read. `keep` says whether the connection can take the
 * next request: HTTP/1.1 without `connection: close` (or 1.0 with
 * keep-alive), a sized body, and no byte beyond the reply.
 */
function createReplyReader() {
  /** Unparsed bytes: the head so far, or the start of a chunk's size line or of the trailer. */
  let pending: Buffer = Buffer.alloc(0)
  let status = 0
  let keep = false
  let mode: 'head' | 'length' | 'close' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' = 'head'
  /** Body bytes still expected (length mode: of the body; chunk-data: of the chunk). */
  let remaining = 0
  const body: Buffer[] = []
  const reply = () => ({ status, text: Buffer.concat(body).toString('utf8') })

  /** Bytes pushed: the reply once complete, else undefined. */
  function push(chunk: Buffer): { reply: HttpReply; keep: boolean } | undefined {
    let data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    pending = Buffer.alloc(0)
    for (;;) {
      switch (mode) {
        case 'head': {
          const end = data.indexOf('\r\n\r\n')
          if (end < 0) {
            if (data.length > maxHeadBytes) throw new Error('malformed reply (no HTTP head)')
            pending = data
            return undefined
          }
          readHead(data.toString('latin1', 0, end))
          data = data.subarray(end + 4)
          continue
        }
        case 'length': {
          const take = Math.min(remaining, data.length)
          body.push(data.subarray(0, take))
          remaining -= take
          if (remaining > 0) return undefined
          // Bytes past the reply were never asked for: the connection is not reused.
          return { reply: reply(), keep: keep && take === data.length }
        }
        case 'close':
          body.push(data)
          return undefined
        case 'chunk-size': {
          const lineEnd = data.indexOf('\r\n')
          if (lineEnd < 0) {
            if (data.length > maxHeadBytes) throw new Error('malformed reply (bad chunk size)')
            pending = data
            return undefined
          }
          const size = data.toString('latin1', 0, lineEnd).split(';')[0]!.trim()
          remaining = /^[0-9a-f]+$/i.test(size) ? Number.parseInt(size, 16) : Number.NaN
          if (!Number.isSafeInteger(remaining)) throw new Error('malformed reply (bad chunk size)')
          data = data.subarray(lineEnd + 2)
          mode = remaining === 0 ? 'trailer' : 'chunk-data'
          continue
        }
        case 'chunk-data': {
          const take = Math.min(remaining, data.length)
          body.push(data.subarray(0, take))
          remaining -= take
          data = data.subarray(take)
          if (remaining > 0) return undefined
          mode = 'chunk-end'
          continue
        }
        case 'chunk-end':
          if (data.length < 2) {
            pending = data
            return undefined
          }
          if (data[0] !== 13 || data[1] !== 10) throw new Error('malformed reply (bad chunk end)')
          data = data.subarray(2)
          mode = 'chunk-size'
          continue
        case 'trailer': {
          // Trailer fields (rare), then the empty line that ends the message.
          const end = data.length >= 2 && data[0] === 13 && data[1] === 10 ? 2 : data.indexOf('\r\n\r\n') + 4
          if (end < 4 && end !== 2) {
            if (data.length > maxHeadBytes) throw new Error('malformed reply (bad trailer)')
            pending = data
            return undefined
          }
          return { reply: reply(), keep: keep && end === data.length }
        }
      }
    }
  }

  function readHead(head: string) {
    const lines = head.split('\r\n')
    const line = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!)
    if (!line) throw new Error(`malformed reply (not HTTP): ${JSON.stringify(lines[0]!.slice(0, 100))}`)
    status = Number(line[2])
    // An interim reply (100 Continue, 103 Early Hints): the real one follows.
    if (status < 200) return
    let length: number | undefined
    let chunked = false
    let connection = ''
    for (const field of lines.slice(1)) {
      const colon = field.indexOf(':')
      if (colon < 0) continue
      const name = field.slice(0, colon).trim().toLowerCase()
      const value = field.slice(colon + 1).trim().toLowerCase()
      if (name === 'content-length') length = /^\d+$/.test(value) ? Number(value) : Number.NaN
      else if (name === 'transfer-encoding') chunked = value.split(',').some((v) => v.trim() === 'chunked')
      else if (name === 'connection') connection = value
    }
    if (length !== undefined && !Number.isSafeInteger(length)) throw new Error('malformed reply (bad content-length)')
    if (status === 204 || status === 304) length = 0
    keep = (line[1] === '1' ? connection !== 'close' : connection === 'keep-alive') && (chunked || length !== undefined)
    if (chunked) mode = 'chunk-size'
    else if (length !== undefined) {
      mode = 'length'
      remaining = length
    } else mode = 'close'
  }

  return {
    push,
    /** The connection ended: the reply if it was one read until the end. */
    end: () => (mode === 'close' ? { reply: reply(), keep: false } : undefined),
  }
}

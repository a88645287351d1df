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
 * balance slot), one after the other, so that cost is paid per transfer:
 * sequential eth_getStorageAt reads to a devnet upstream cost 0.39 ms of CPU
 * each over node:http against 0.04 ms here in a fresh process (the first
 * thousand; 0.065 against 0.013 ms once warm), bench/forkTxCpu.ts.
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
      let buffer: Buffer = Buffer.alloc(0)
      let started = false
      /** Where the body starts once the head is read, how it ends, and whether the connection stays open. */
      let body: { start: number; status: number; length: number | undefined; chunked: boolean; keep: boolean } | undefined
      const done = (error: Error | undefined, result?: { reply: HttpReply; keep: boolean }) => {
        clearTimeout(timer)
        socket.off('data', onData).off('end', onEnd).off('error', onError).off('close', onEnd)
        if (error) {
          ;(error as Error & { started?: boolean }).started = started
          reject(error)
        } else resolve(result!)
      }
      const timer = setTimeout(() => {
        socket.destroy()
        done(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { timedOut: true }))
      }, timeoutMs)
      const onError = (error: Error) => done(error)
      const onEnd = () => {
        // A reply without a length ends with the connection.
        if (body && body.length === undefined && !body.chunked)
          return done(undefined, { reply: { status: body.status, text: buffer.toString('utf8', body.start) }, keep: false })
        done(new Error(started ? 'connection closed in the middle of the reply' : 'connection closed before the reply'))
      }
      const onData = (chunk: Buffer) => {
        started = true
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        try {
          const result = parse()
          if (result) done(undefined, result)
        } catch (error) {
          socket.destroy()
          done(error as Error)
        }
      }
      /** The reply once complete, else undefined (more bytes to come). */
      function parse(): { reply: HttpReply; keep: boolean } | undefined {
        while (!body) {
          const end = buffer.indexOf('\r\n\r\n')
          if (end < 0) {
            if (buffer.length > maxHeadBytes) throw new Error('malformed reply (no HTTP head)')
            return undefined
          }
          const lines = buffer.toString('latin1', 0, end).split('\r\n')
          const status = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!)
          if (!status) throw new Error(`malformed reply (not HTTP): ${JSON.stringify(lines[0]!.slice(0, 100))}`)
          const code = Number(status[2])
          if (code >= 100 && code < 200) {
            // An interim reply (100 Continue, 103 Early Hints): the real one follows.
            buffer = buffer.subarray(end + 4)
            continue
          }
          let length: number | undefined
          let chunked = false
          let connection = ''
          for (let i = 1; i < lines.length; i++) {
            const line = lines[i]!
            const colon = line.indexOf(':')
            if (colon < 0) continue
            const name = line.slice(0, colon).trim().toLowerCase()
            const value = line.slice(colon + 1).trim().toLowerCase()
            if (name === 'content-length') length = Number(value)
            else if (name === 'transfer-encoding') chunked = value.split(',').some((v) => v.trim() === 'chunked')
            else if (name === 'connection') connection = value
          }
          if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) throw new Error('malformed reply (bad content-length)')
          if (code === 204 || code === 304) length = 0
          const keep = (status[1] === '1' ? connection !== 'close' : connection === 'keep-alive') && (chunked || length !== undefined)
          body = { start: end + 4, status: code, length: chunked ? undefined : length, chunked, keep }
        }
        if (body.chunked) {
          const pieces: Buffer[] = []
          let at = body.start
          for (;;) {
            const lineEnd = buffer.indexOf('\r\n', at)
            if (lineEnd < 0) return undefined
            const size = Number.parseInt(buffer.toString('latin1', at, lineEnd).split(';')[0]!.trim(), 16)
            if (!Number.isSafeInteger(size) || size < 0) throw new Error('malformed reply (bad chunk size)')
            if (size === 0) {
              // Trailer fields (rare), then the empty line that ends the message.
              const end = buffer.indexOf('\r\n', lineEnd + 2) === lineEnd + 2 ? lineEnd + 4 : buffer.indexOf('\r\n\r\n', lineEnd + 2) + 4
              if (end < 4 || end > buffer.length) return undefined
              return { reply: { status: body.status, text: Buffer.concat(pieces).toString('utf8') }, keep: body.keep && end === buffer.length }
            }
            if (buffer.length < lineEnd + 2 + size + 2) return undefined
            pieces.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
            at = lineEnd + 2 + size + 2
          }
        }
        if (body.length === undefined) return undefined
        const end = body.start + body.length
        if (buffer.length < end) return undefined
        // Bytes past the reply were never asked for: the connection is not reused.
        return { reply: { status: body.status, text: buffer.toString('utf8', body.start, end) }, keep: body.keep && end === buffer.length }
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

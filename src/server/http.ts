import type http from 'node:http'
import net, { type AddressInfo, type Socket } from 'node:net'
import type { Dispatcher } from '../rpc/dispatch.js'
import { type FastPathOptions, type PostAnswer, serveFast } from './fastHttp.js'

export type ServerOptions = {
  host: string
  port: number
  cors: boolean
  bodyLimit: number
}

/** A static response: what the transport writes for a GET that is not JSON-RPC. */
export type StaticResponse = { status: number; type: string; body: string; headers?: Record<string, string> | undefined }

/** Answers a GET for `path`, or undefined to let the transport answer as it does without them. */
export type StaticRoutes = (path: string, acceptsHtml: boolean) => Promise<StaticResponse | undefined>

const internalError = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}'
const info = JSON.stringify({ name: 'devnet', jsonrpc: 'POST / with a JSON-RPC 2.0 body' })

const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
}

/** The request listener, plus what the fast path (fastHttp.ts) needs to answer POSTs itself. */
export type HttpApp = http.RequestListener & { fast?: Pick<FastPathOptions, 'answer' | 'bodyLimit' | 'extraHeaders'> }

/**
 * How long a client may take to send a request, and how long an idle
 * kept-alive connection stays open, on the fast path and in node:http alike:
 * node:http's defaults (60 s for the head, 300 s for the whole request,
 * checked every 30 s there) and 65 s kept alive (devnet's since its first
 * server), smaller in tests.
 */
export type RequestTimeouts = { headersMs: number; requestMs: number; checkEveryMs: number; keepAliveMs?: number | undefined }
const defaultTimeouts: RequestTimeouts = { headersMs: 60_000, requestMs: 300_000, checkEveryMs: 30_000 }
const defaultKeepAliveMs = 65_000

/**
 * HTTP transport: POST / with a JSON-RPC body. Knows nothing about Ethereum;
 * it turns bytes into `dispatcher.respond(payload)` and back. A body over the
 * limit gets a JSON-RPC error, never a crash.
 *
 * A plain node:http listener rather than express: the transport has two
 * routes, and express's router, request decoration and module load cost more
 * than the whole of an eth_getBalance (a quarter of its time per request and
 * ~0.2 s of cold start). Every response is written in one `end` with its
 * headers, so a reply is one socket write. `listen` goes further for the
 * common case (fastHttp.ts): a JSON-RPC POST on a kept-alive connection is
 * answered without node:http's request and response objects at all.
 *
 * `routes` (the live page, src/ui) answer GETs other than JSON-RPC's; a GET /
 * that does not ask for HTML (curl, a health check) keeps its JSON answer.
 */
export function createHttpApp(
  dispatcher: Pick<Dispatcher, 'respondText'>,
  options: ServerOptions,
  routes?: StaticRoutes | undefined,
): HttpApp {
  const base: Record<string, string> = options.cors ? corsHeaders : {}
  const send = (
    res: http.ServerResponse,
    status: number,
    body: string | undefined,
    type = 'application/json',
    extra?: Record<string, string>,
  ) => {
    if (body === undefined) {
      res.writeHead(status, base)
      res.end()
      return
    }
    res.writeHead(status, { ...base, ...extra, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
    res.end(body)
  }

  const serveStatic = async (req: http.IncomingMessage, res: http.ServerResponse, path: string) => {
    const accept = req.headers.accept
    const found = await routes!(path, typeof accept === 'string' && accept.includes('text/html')).catch(() => undefined)
    if (!found) return false
    send(res, found.status, found.body, found.type, found.headers)
    return true
  }

  const reply = (body: string | undefined): PostAnswer => (body === undefined ? { status: 204, body: undefined } : { status: 200, body })
  // The dispatcher turns every method error into a response; this is a bug, never the client's fault.
  const bug = (error: unknown): PostAnswer => {
    console.error('devnet: internal error:', error)
    return { status: 500, body: internalError }
  }
  /**
   * The answer to a POST body: the dispatcher's reply (a parse error
   * included), 204 for notifications only, or 500 for a bug; at once when the
   * dispatcher has it at once (a memoized read), which the fast path writes
   * in the same turn.
   */
  const answerText = (text: string): PostAnswer | Promise<PostAnswer> => {
    try {
      const body = dispatcher.respondText(text)
      return typeof body === 'object' ? body.then(reply, bug) : reply(body)
    } catch (error) {
      return bug(error)
    }
  }

  const answer = async (res: http.ServerResponse, text: string) => {
    const { status, body } = await answerText(text)
    send(res, status, body)
  }

  const listener: HttpApp = (req, res) => {
    const path = req.url === '/' ? '/' : ((req.url ?? '/').split('?')[0] ?? '/')
    if (req.method === 'OPTIONS' && options.cors) {
      send(res, 204, undefined)
      req.resume()
      return
    }
    if (routes && (req.method === 'GET' || req.method === 'HEAD')) {
      req.resume()
      void serveStatic(req, res, path).then((served) => {
        if (served) return
        if (path === '/') send(res, 200, info)
        else send(res, 404, `Cannot ${req.method} ${path}\n`, 'text/plain; charset=utf-8')
      })
      return
    }
    if (path !== '/') {
      send(res, 404, `Cannot ${req.method} ${path}\n`, 'text/plain; charset=utf-8')
      req.resume()
      return
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      send(res, 200, info)
      return
    }
    if (req.method !== 'POST') {
      send(res, 404, `Cannot ${req.method} /\n`, 'text/plain; charset=utf-8')
      req.resume()
      return
    }
    const declared = Number(req.headers['content-length'])
    let size = 0
    let tooLarge = declared > options.bodyLimit
    let single: Buffer | undefined
    let chunks: Buffer[] | undefined
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (tooLarge || size > options.bodyLimit) {
        tooLarge = true
        single = undefined
        chunks = undefined
        return
      }
      // Small requests arrive in one chunk: no array, no concat.
      if (single === undefined && chunks === undefined) single = chunk
      else {
        chunks ??= [single!]
        single = undefined
        chunks.push(chunk)
      }
    })
    req.on('end', () => {
      if (tooLarge) {
        send(
          res,
          413,
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: `request body too large (limit ${options.bodyLimit} bytes)` },
          }),
        )
        return
      }
      const text = single ? single.toString('utf8') : chunks ? Buffer.concat(chunks).toString('utf8') : ''
      void answer(res, text)
    })
  }
  const extraHeaders = Object.entries(base).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  listener.fast = { answer: answerText, bodyLimit: options.bodyLimit, extraHeaders }
  return listener
}

/**
 * Listens on host:port (port 0: any free port); resolves with the URL and a
 * close function. With an app from `createHttpApp`, connections start on the
 * fast path (fastHttp.ts) and move to node:http (`server`, where WebSockets
 * attach) at the first request it does not take. That server never listens
 * itself, and node:http tracks connections for its header and request
 * timeouts only from its 'listening' event on: it gets that event when it is
 * made, so the connections it is handed keep node:http's slowloris
 * protection (the fast path applies the same limits itself).
 *
 * With the fast path, node:http (~3 ms of CPU of loading in a cold process)
 * is loaded when first needed: at the first connection handed to it, or when
 * `server` is read. `withServer` runs a function on that server once it is
 * made (at once if it is), without making it: a start whose clients only
 * POST JSON-RPC (the first eth_chainId, a fork's reads) never loads node:http
 * for its server.
 */
export async function listen(app: HttpApp, options: ServerOptions & { timeouts?: RequestTimeouts | undefined }) {
  const timeouts = options.timeouts ?? defaultTimeouts
  const fast = app.fast
  const sockets = new Set<Socket>()
  let server: http.Server | undefined
  let waiting: ((server: http.Server) => void)[] = []
  /** node:http's server, made now if it was not. */
  const nodeServer = (): http.Server => {
    if (server) return server
    const made = (server = httpServer(app, timeouts))
    // Starts node:http's connection tracking and its timeout checks (an unref'd interval; server.close() stops it).
    made.emit('listening')
    const hooks = waiting
    waiting = []
    for (const hook of hooks) hook(made)
    return made
  }
  const handOff = (socket: Socket, unread: Buffer | undefined) => {
    // Paused while node:http takes over: no byte is read before its parser listens.
    socket.pause()
    if (unread) socket.unshift(unread)
    nodeServer().emit('connection', socket)
    process.nextTick(() => socket.resume())
  }
  const listener = fast
    ? net.createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
        sockets.add(socket)
        socket.once('close', () => sockets.delete(socket))
        serveFast(socket, { ...fast, keepAliveMs: timeouts.keepAliveMs ?? defaultKeepAliveMs, headersTimeoutMs: timeouts.headersMs, requestTimeoutMs: timeouts.requestMs, handOff })
      })
    : (server = httpServer(app, timeouts))
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject)
    listener.listen(options.port, options.host, () => resolve())
  })
  const { port } = listener.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    /** node:http's server (made on this first read when the fast path has not needed it yet). */
    get server(): http.Server {
      return nodeServer()
    },
    /** Runs `use` on node:http's server once it is made (at once if it is), without making it. */
    withServer(use: (server: http.Server) => void): void {
      if (server) use(server)
      else waiting.push(use)
    },
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Every connection, handed off or not (node:http tracks only the connections it accepted itself).
        for (const socket of sockets) socket.destroy()
        waiting = []
        if (listener === server) {
          server.closeAllConnections?.()
          server.close(() => resolve())
          return
        }
        if (server) {
          server.closeAllConnections?.()
          // node:http's timeout checks stop with its close, which reports (harmlessly) that it never listened.
          server.close(() => {})
        }
        listener.close(() => resolve())
      }),
  }
}

/**
 * node:http's server for `app`, loaded when first needed (process.getBuiltinModule rather than a createRequire,
 * which would load node:module's public face before the front listens: the ES module loader with it).
 */
function httpServer(app: HttpApp, timeouts: RequestTimeouts): http.Server {
  const { createServer } = process.getBuiltinModule('node:http')
  const server = createServer(
    { noDelay: true, headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    app,
  )
  server.keepAliveTimeout = timeouts.keepAliveMs ?? defaultKeepAliveMs
  return server
}

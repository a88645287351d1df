import { type HttpReply, createHttpClient } from './httpClient.js'

/**
 * How a fork's upstream client (remote.ts) sends one HTTP request: POSTs a
 * JSON body to the upstream over kept-alive connections and resolves to the
 * reply, or rejects with a plain Error whose message says what failed (the
 * client only reads `.message`). Plain http through the lean client of
 * httpClient.ts; https (TLS) through node:https, loaded on first use (it
 * costs a start ~10 ms of CPU, and a local upstream is http).
 *
 * Its own module, importing node's built-ins only and holding no class of
 * devnet's: the CLI's front bundle (src/cli/front.ts) makes the transport and
 * sends a fork's first reads on it (firstReads.ts) before the rest of the CLI
 * is read, and the CLI bundle's upstream client then keeps using it (the
 * same kept-alive connection, no second TLS handshake). Only functions, plain
 * data and plain Errors cross between the two bundles. node:http and node:https
 * are taken only when a request needs them (process.getBuiltinModule): the
 * front of a start without a fork takes this module in too, and listens
 * before node:http is loaded.
 */
export type Transport = {
  post(data: string, timeoutMs: number): Promise<HttpReply>
  close(): void
}

export function createTransport(url: string, maxSockets: number): Transport {
  // An invalid URL: every request fails with "invalid URL", named by its method (remote.ts).
  const target = URL.canParse(url) ? new URL(url) : undefined
  const plainClient = target?.protocol === 'http:' ? createHttpClient(target, maxSockets) : undefined
  if (plainClient) return plainClient
  type Client = { agent: import('node:http').Agent; request: typeof import('node:http').request }
  const clients = new Map<string, Client>()
  const client = (id: 'node:http' | 'node:https') => {
    let made = clients.get(id)
    if (!made) {
      const { Agent, request } = process.getBuiltinModule(id) as typeof import('node:http')
      clients.set(id, (made = { agent: new Agent({ keepAlive: true, maxSockets }), request }))
    }
    return made
  }
  return {
    async post(data, timeoutMs) {
      if (!target) throw new Error('invalid URL')
      const { request, agent } = client(target.protocol === 'https:' ? 'node:https' : 'node:http')
      return new Promise((resolve, reject) => {
        const req = request(
          target,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
          },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (chunk: Buffer) => chunks.push(chunk))
            res.on('end', () => {
              clearTimeout(timer)
              resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })
            })
            res.on('error', fail)
          },
        )
        function fail(error: Error) {
          clearTimeout(timer)
          reject(timedOut ? new Error(`timed out after ${timeoutMs} ms`) : error)
        }
        let timedOut = false
        const timer = setTimeout(() => {
          timedOut = true
          req.destroy()
        }, timeoutMs)
        req.on('error', fail)
        req.end(data)
      })
    },
    close() {
      for (const { agent } of clients.values()) agent.destroy()
    },
  }
}

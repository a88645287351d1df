import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { Dispatcher } from '../rpc/dispatch.js'

export type ServerOptions = {
  host: string
  port: number
  cors: boolean
  bodyLimit: number
}

const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }

/**
 * HTTP transport: POST / with a JSON-RPC body. Knows nothing about Ethereum;
 * it turns bytes into `dispatcher.handle(payload)` and back. A body over the
 * limit gets a JSON-RPC error, never a crash.
 */
export function createHttpApp(dispatcher: Dispatcher, options: ServerOptions) {
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag')
  if (options.cors)
    app.use((req, res, next) => {
      res.setHeader('Access-Control-Allow-Origin', '*')
      res.setHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS')
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization')
      if (req.method === 'OPTIONS') {
        res.status(204).end()
        return
      }
      next()
    })
  app.get('/', (_req, res) => {
    res.json({ name: 'devnet', jsonrpc: 'POST / with a JSON-RPC 2.0 body' })
  })
  app.post('/', (req, res) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > options.bodyLimit) tooLarge = true
      else chunks.push(chunk)
    })
    req.on('end', async () => {
      if (tooLarge) {
        res.status(413).json({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: `request body too large (limit ${options.bodyLimit} bytes)` },
        })
        return
      }
      let payload: unknown
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        res.status(200).json(parseError)
        return
      }
      const response = await dispatcher.handle(payload)
      if (response === undefined) {
        res.status(204).end()
        return
      }
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(response))
    })
  })
  return app
}

/** Listens on host:port (port 0: any free port); resolves with the URL and a close function. */
export async function listen(app: express.Express, options: ServerOptions) {
  const server = http.createServer(app)
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}

import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Facilitator, createFacilitator } from './facilitator.js'
import { RequestShapeError } from './parse.js'

export declare namespace startFacilitator {
  type Options = createFacilitator.Options & {
    /** @default '127.0.0.1' */
    host?: string | undefined
    /** 0 picks a free port. @default 0 */
    port?: number | undefined
    /** Largest request body, bytes. @default 1 MiB */
    bodyLimit?: number | undefined
  }
  type ReturnType = {
    /** Pass to `new HTTPFacilitatorClient({ url })`. */
    url: string
    port: number
    facilitator: Facilitator
    close(): Promise<void>
  }
}

class BodyError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        reject(new BodyError(413, `body larger than ${limit} bytes`))
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

const send = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

/**
 * Serves a {@link createFacilitator} facilitator over HTTP with the routes
 * the x402 `HTTPFacilitatorClient` (`@x402/core` 2.27.0) calls:
 * `GET /supported`, `POST /verify`, `POST /settle`. An invalid payment is a
 * 200 with `isValid: false` / `success: false` and the reason, as the
 * reference facilitator answers; a body that is not the client's envelope is
 * a 400, a chain that does not answer a 500, both `{ error }`.
 *
 * Binds to 127.0.0.1 unless told otherwise: whoever reaches it can make the
 * settling account spend gas.
 */
export async function startFacilitator(options: startFacilitator.Options): Promise<startFacilitator.ReturnType> {
  const facilitator = await createFacilitator(options)
  const limit = options.bodyLimit ?? 1024 * 1024
  const server = createServer(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/'
    try {
      if (path === '/supported') {
        if (request.method !== 'GET') return send(response, 405, { error: 'use GET /supported' })
        return send(response, 200, facilitator.supported())
      }
      if (path !== '/verify' && path !== '/settle') return send(response, 404, { error: `no route ${path}` })
      if (request.method !== 'POST') return send(response, 405, { error: `use POST ${path}` })
      let body: unknown
      try {
        body = JSON.parse(await readBody(request, limit))
      } catch (error) {
        if (error instanceof BodyError) return send(response, error.status, { error: error.message })
        return send(response, 400, { error: 'the body is not valid JSON' })
      }
      const result = path === '/verify' ? await facilitator.verify(body) : await facilitator.settle(body)
      return send(response, 200, result)
    } catch (error) {
      if (error instanceof RequestShapeError) return send(response, 400, { error: error.message })
      if (!response.headersSent) send(response, 500, { error: (error as Error).message.split('\n')[0] })
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const host = options.host ?? '127.0.0.1'
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    facilitator,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer } from 'ws'
import type { Node } from '../node/node.js'
import type { MethodContext } from '../rpc/defineMethod.js'
import { type Dispatcher, createDispatcher } from '../rpc/dispatch.js'
import { createSubscriptions } from '../rpc/subscriptions.js'

export type WebSocketOptions = {
  /** Bytes a connection may have queued before it is dropped: a slow or dead client never holds the node back. */
  maxBufferedBytes: number
  /** Largest message accepted; a larger one closes the connection with 1009 (message too big), as geth. The HTTP body limit by default. */
  maxPayload: number
}

/**
 * WebSocket transport on the HTTP server's port: every JSON-RPC method,
 * batches included, plus eth_subscribe / eth_unsubscribe bound to the
 * connection. Sends never wait: a connection whose unsent data passes the
 * limit is terminated and its subscriptions stop.
 */
export function attachWebSocket(
  server: Server,
  dispatcher: Dispatcher,
  nodeOf: Node | (() => Node),
  options: Partial<WebSocketOptions> & { refork?: MethodContext['refork'] | undefined } = {},
) {
  // A getter follows a node replaced by a re-fork (anvil_reset with forking): requests and subscriptions move with it.
  const current = typeof nodeOf === 'function' ? nodeOf : () => nodeOf
  const node = current()
  const { maxBufferedBytes, maxPayload } = { maxBufferedBytes: 16 * 1024 * 1024, maxPayload: node.config.bodyLimit, ...options }
  const live = new Set<ReturnType<typeof createSubscriptions>>()
  const shared = [...dispatcher.methods.values()]
  // `ws` loads on the first upgrade: a node most clients reach over HTTP does not pay for it at start.
  let wss: WebSocketServer | undefined
  let loading: Promise<WebSocketServer> | undefined
  let closed = false
  const loadServer = () =>
    (loading ??= import('ws').then(({ WebSocketServer }) => {
      wss = new WebSocketServer({ noServer: true, maxPayload })
      wss.on('connection', connect)
      return wss
    }))
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node's HTTP server drops its socket error listener on upgrade; until ws adds its own, a reset must not crash.
    const dropSocket = () => socket.destroy()
    socket.on('error', dropSocket)
    loadServer().then(
      (wss) => {
        socket.off('error', dropSocket)
        if (closed || socket.destroyed) return socket.destroy()
        wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request))
      },
      dropSocket,
    )
  })

  const connect = (socket: WebSocket) => {
    let open = true
    const writeText = (text: string) => {
      if (!open || socket.readyState !== socket.OPEN) return
      if (socket.bufferedAmount > maxBufferedBytes) {
        drop()
        return
      }
      socket.send(text, (error) => {
        if (error) drop()
      })
    }
    const write = (message: unknown) => writeText(JSON.stringify(message))
    const subscriptions = createSubscriptions(current, write)
    live.add(subscriptions)
    const connection = createDispatcher(current(), [...shared, ...subscriptions.methods], {
      debug: node.config.debug,
      follow: current,
      refork: options.refork,
    })
    const drop = () => {
      if (!open) return
      open = false
      subscriptions.close()
      live.delete(subscriptions)
      socket.terminate()
    }
    socket.on('close', () => {
      open = false
      subscriptions.close()
      live.delete(subscriptions)
    })
    socket.on('error', drop)
    socket.on('message', async (raw) => {
      let payload: unknown
      try {
        payload = JSON.parse(raw.toString())
      } catch {
        write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
        return
      }
      // Only a request that subscribes holds notifications back, so its id arrives before the first one.
      const subscribes = (Array.isArray(payload) ? payload : [payload]).some(
        (r) => typeof r === 'object' && r !== null && (r as { method?: unknown }).method === 'eth_subscribe',
      )
      if (subscribes) subscriptions.hold()
      try {
        const response = await connection.respond(payload)
        if (response !== undefined) writeText(response)
      } finally {
        if (subscribes) subscriptions.release()
      }
    })
  }
  return {
    /** Open connections. */
    clients: () => wss?.clients.size ?? 0,
    /** After a re-fork: every open subscription listens to the node the getter now returns. */
    rebind() {
      for (const subscriptions of live) subscriptions.rebind()
    },
    close: () => {
      closed = true
      if (!wss) return
      for (const client of wss.clients) client.terminate()
      wss.close()
    },
  }
}

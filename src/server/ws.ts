import type { Server } from 'node:http'
import { WebSocketServer } from 'ws'
import type { Node } from '../node/node.js'
import type { Dispatcher } from '../rpc/dispatch.js'

/**
 * WebSocket transport on the HTTP server's port: every JSON-RPC method,
 * batches included. Subscriptions (eth_subscribe) build on this.
 */
export function attachWebSocket(server: Server, dispatcher: Dispatcher, _node: Node) {
  const wss = new WebSocketServer({ server, maxPayload: 10 * 1024 * 1024 })
  wss.on('connection', (socket) => {
    socket.on('message', async (raw) => {
      let payload: unknown
      try {
        payload = JSON.parse(raw.toString())
      } catch {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }))
        return
      }
      const response = await dispatcher.handle(payload)
      if (response !== undefined && socket.readyState === socket.OPEN) socket.send(JSON.stringify(response))
    })
  })
  return { close: () => wss.close() }
}

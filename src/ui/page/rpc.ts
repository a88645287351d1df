/** One JSON-RPC error, as the node sends it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

type Pending = { resolve: (value: any) => void; reject: (error: Error) => void }

/**
 * JSON-RPC over the node's own WebSocket (same host and port as the page):
 * requests, batches and eth_subscribe. On a drop it reconnects and calls
 * `onOpen` again, which subscribes afresh and reloads what the page shows.
 */
export function connect(options: { onOpen: () => void; onClose: () => void }) {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`
  let socket: WebSocket | undefined
  let nextId = 1
  const pending = new Map<number, Pending>()
  const handlers = new Map<string, (result: any) => void>()
  const queue: string[] = []

  const open = () => {
    const ws = new WebSocket(url)
    socket = ws
    ws.onopen = () => {
      for (const frame of queue.splice(0)) ws.send(frame)
      options.onOpen()
    }
    ws.onclose = () => {
      for (const p of pending.values()) p.reject(new Error('connection closed'))
      pending.clear()
      handlers.clear()
      options.onClose()
      setTimeout(open, 1000)
    }
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data))
      for (const item of Array.isArray(message) ? message : [message]) {
        if (item.method === 'eth_subscription') {
          handlers.get(item.params.subscription)?.(item.params.result)
          continue
        }
        const p = pending.get(item.id)
        if (!p) continue
        pending.delete(item.id)
        if (item.error) p.reject(new RpcError(item.error.code, item.error.message, item.error.data))
        else p.resolve(item.result)
      }
    }
  }

  const send = (frame: string) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(frame)
    else queue.push(frame)
  }

  const request = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })

  /** Many calls in one frame; each settles on its own (an error is returned in place, not thrown). */
  const batch = (calls: [string, unknown[]][]): Promise<unknown[]> => {
    if (calls.length === 0) return Promise.resolve([])
    const frames = calls.map(([method, params]) => ({ jsonrpc: '2.0', id: nextId++, method, params }))
    const settled = frames.map(
      (f) =>
        new Promise<unknown>((resolve) =>
          pending.set(f.id, { resolve, reject: (error) => resolve(error) }),
        ),
    )
    send(JSON.stringify(frames))
    return Promise.all(settled)
  }

  const subscribe = async (kind: string, onResult: (result: any) => void, filter?: unknown) => {
    const id = await request<string>('eth_subscribe', filter === undefined ? [kind] : [kind, filter])
    handlers.set(id, onResult)
    return id
  }

  open()
  return { request, batch, subscribe }
}

export type Rpc = ReturnType<typeof connect>

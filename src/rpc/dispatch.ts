import type { Node } from '../node/node.js'
import { InvalidRequestError, MethodNotFoundError } from './errors.js'
import type { MethodContext, MethodDef } from './defineMethod.js'
import { routeToUpstream } from './forkRoute.js'
import { toRpcError } from './toRpcError.js'

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: string | number | null; result: unknown }
  | { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } }

export type Dispatcher = {
  /** Handles a parsed JSON-RPC payload (one request or a batch); undefined when there is nothing to answer (notifications only). */
  handle(payload: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>
  /** `handle`, serialized for a transport; a batch's replies stop growing past `batchResponseLimit` bytes. */
  respond(payload: unknown): Promise<string | undefined>
  /** Calls one method directly (EIP-1193 `request`). */
  call(method: string, params: unknown): Promise<unknown>
  methods: Map<string, MethodDef>
}

const validId = (id: unknown) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/** geth's code for a batch reply cut at the response size limit. */
const responseTooLarge = -32003

export type DispatcherOptions = {
  debug: boolean
  /** Most requests in a batch; defaults to the node's config (1000, as geth). */
  batchLimit?: number | undefined
  /** Reply bytes after which the rest of a batch gets -32003; defaults to the node's config (25 MB, as geth). */
  batchResponseLimit?: number | undefined
}

/**
 * A batch past the limit is refused whole, the way geth does: one -32600
 * carrying the id of the first call, so a client that matches replies by id
 * still finds an answer.
 */
function batchTooLarge(batch: unknown[], limit: number): JsonRpcResponse[] {
  const first = batch.find((r) => typeof r === 'object' && r !== null && 'id' in r && validId((r as { id: unknown }).id))
  const id = first ? ((first as { id: string | number | null }).id ?? null) : null
  const message = `batch too large: ${batch.length} requests, the limit is ${limit}`
  return [{ jsonrpc: '2.0', id, error: new InvalidRequestError(message).toErrorObject() }]
}

/** A `Map`, not an object: `constructor` and `__proto__` are never methods. */
export function createDispatcher(
  node: Node,
  methods: MethodDef[],
  options: DispatcherOptions & {
    refork?: MethodContext['refork']
    /** The node requests reach, asked per request: follows a node a re-fork replaced elsewhere (a WebSocket connection's dispatcher). */
    follow?: (() => Node) | undefined
  },
): Dispatcher {
  const batchLimit = options.batchLimit ?? node.config.batchLimit
  const batchResponseLimit = options.batchResponseLimit ?? node.config.batchResponseLimit
  const table = new Map(methods.map((m) => [m.method, m]))
  const context: MethodContext = { node, debug: options.debug }
  const follow = options.follow
  if (follow) Object.defineProperty(context, 'node', { get: follow, set: () => {}, enumerable: true })
  // A reset onto another fork replaces the node every later request reaches.
  if (options.refork) {
    const refork = options.refork
    context.refork = async (forking) => {
      const next = await refork(forking)
      if (!follow) context.node = next
      return next
    }
  }
  const log = (error: unknown) => console.error('devnet: internal error:', error)

  const callLocal = async (method: string, params: unknown) => {
    const def = table.get(method)
    if (!def) throw new MethodNotFoundError(method)
    return def.call(context, params)
  }
  // On a fork, requests about the upstream's history are answered there (rpc/forkRoute.ts).
  const call = async (method: string, params: unknown) => {
    if (!context.node.fork) return callLocal(method, params)
    const routed = await routeToUpstream(context.node, method, params, callLocal)
    return routed.routed ? routed.result : callLocal(method, params)
  }

  const one = async (request: unknown): Promise<JsonRpcResponse | undefined> => {
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      return { jsonrpc: '2.0', id: null, error: new InvalidRequestError().toErrorObject() }
    const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown }
    const isNotification = !('id' in r)
    const id = isNotification ? null : validId(r.id) ? (r.id as string | number | null) : null
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (!isNotification && !validId(r.id)))
      return { jsonrpc: '2.0', id, error: new InvalidRequestError().toErrorObject() }
    try {
      const result = await call(r.method, r.params)
      if (isNotification) return undefined
      return { jsonrpc: '2.0', id, result: result === undefined ? null : result }
    } catch (error) {
      if (isNotification) return undefined
      return { jsonrpc: '2.0', id, error: toRpcError(error, { debug: options.debug, log }) }
    }
  }

  const handle = async (payload: unknown) => {
    if (Array.isArray(payload)) {
      if (payload.length === 0)
        return { jsonrpc: '2.0', id: null, error: new InvalidRequestError('empty batch').toErrorObject() } as const
      if (payload.length > batchLimit) return batchTooLarge(payload, batchLimit)
      const responses = (await Promise.all(payload.map(one))).filter((r): r is JsonRpcResponse => r !== undefined)
      return responses.length > 0 ? responses : undefined
    }
    return one(payload)
  }

  return {
    methods: table,
    call,
    handle,
    async respond(payload) {
      const response = await handle(payload)
      if (response === undefined) return undefined
      if (!Array.isArray(response) || response.length < 2) return JSON.stringify(response)
      // Each reply is serialized once; past the limit the rest are replaced, as geth's BatchResponseMaxSize does.
      // (The calls have run by then: a batch runs its items concurrently.)
      let size = 0
      const parts = response.map((r) => {
        const text =
          size > batchResponseLimit
            ? JSON.stringify({ jsonrpc: '2.0', id: r.id, error: { code: responseTooLarge, message: 'response too large' } })
            : JSON.stringify(r)
        size += text.length + 1
        return text
      })
      return `[${parts.join(',')}]`
    },
  }
}

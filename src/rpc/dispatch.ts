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
  /** Calls one method directly (EIP-1193 `request`). */
  call(method: string, params: unknown): Promise<unknown>
  methods: Map<string, MethodDef>
}

const validId = (id: unknown) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/** A `Map`, not an object: `constructor` and `__proto__` are never methods. */
export function createDispatcher(
  node: Node,
  methods: MethodDef[],
  options: { debug: boolean; refork?: MethodContext['refork'] },
): Dispatcher {
  const table = new Map(methods.map((m) => [m.method, m]))
  const context: MethodContext = { node, debug: options.debug }
  // A reset onto another fork replaces the node every later request reaches.
  if (options.refork) {
    const refork = options.refork
    context.refork = async (forking) => (context.node = await refork(forking))
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

  return {
    methods: table,
    call,
    async handle(payload) {
      if (Array.isArray(payload)) {
        if (payload.length === 0)
          return { jsonrpc: '2.0', id: null, error: new InvalidRequestError('empty batch').toErrorObject() }
        const responses = (await Promise.all(payload.map(one))).filter((r): r is JsonRpcResponse => r !== undefined)
        return responses.length > 0 ? responses : undefined
      }
      return one(payload)
    },
  }
}

import type { Node } from '../node/node.js'
import type { BlockId } from '../node/views.js'
import { createAnswerMemo } from './answerMemo.js'
import { InvalidRequestError, MethodNotFoundError } from './errors.js'
import type { MethodContext, MethodDef } from './defineMethod.js'
import { routeToUpstream } from './forkRoute.js'
import { type RequestText, splitRequest } from './requestText.js'
import { respondToText } from './parseError.js'
import { toRpcError } from './toRpcError.js'

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: string | number | null; result: unknown }
  | { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } }

export type Dispatcher = {
  /** Handles a parsed JSON-RPC payload (one request or a batch); undefined when there is nothing to answer (notifications only). */
  handle(payload: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>
  /** `handle`, serialized for a transport; a batch's replies stop growing past `batchResponseLimit` bytes. */
  respond(payload: unknown): Promise<string | undefined>
  /**
   * `respond` for a request body's text (-32700 when it is not JSON); at
   * once, without a promise, when the answer is in the memo.
   */
  respondText(text: string): string | undefined | Promise<string | undefined>
  /** Calls one method directly (EIP-1193 `request`). */
  call(method: string, params: unknown): Promise<unknown>
  methods: Map<string, MethodDef>
}

const validId = (id: unknown) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/** geth's code for a batch reply cut at the response size limit. */
const responseTooLarge = -32003

const latest: BlockId = { tag: 'latest' }
const pending: BlockId = { tag: 'pending' }

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

  // `local`: the request is known to stay local on a fork (and so runs its handler in this turn).
  const one = async (request: unknown, local = false): Promise<JsonRpcResponse | undefined> => {
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      return { jsonrpc: '2.0', id: null, error: new InvalidRequestError().toErrorObject() }
    const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown }
    const isNotification = !('id' in r)
    const id = isNotification ? null : validId(r.id) ? (r.id as string | number | null) : null
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || (!isNotification && !validId(r.id)))
      return { jsonrpc: '2.0', id, error: new InvalidRequestError().toErrorObject() }
    try {
      const result = await (local ? callLocal : call)(r.method, r.params)
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
      const responses = (await Promise.all(payload.map((r) => one(r)))).filter((r): r is JsonRpcResponse => r !== undefined)
      return responses.length > 0 ? responses : undefined
    }
    return one(payload)
  }

  /*
   * Repeated state reads at `latest` or `pending` (methods with `readsState`), answered from the memo when the body
   * is written the usual way (requestText.ts): no parse, no handler, the reply written around the kept result.
   * Those tags are never about a fork's upstream, so a miss runs the handler locally, in this turn, at the view
   * resolved here.
   */
  const memo = createAnswerMemo()
  const resolve = (id: BlockId) => context.node.views.resolve(id)
  /** A memo miss with its body parsed (once, for the ordinary path too): answered and kept when its block is memoized. */
  const answerAndKeep = (def: MethodDef, request: RequestText, key: string, payload: { params?: unknown }) => {
    const params = payload.params
    if (!Array.isArray(params)) return undefined
    const reads = def.readsState!
    const block = params[reads.block]
    const id = block === undefined || block === 'latest' ? latest : block === 'pending' && reads.pending ? pending : undefined
    if (id === undefined) return undefined
    const view = memo.at(resolve(id))
    return one(payload, true).then((response) => {
      if (response === undefined || !('result' in response)) return JSON.stringify(response)
      const result = JSON.stringify(response.result)
      memo.keep(key, id, view, result)
      return `{"jsonrpc":"2.0","id":${request.id},"result":${result}}`
    })
  }

  const respond = async (payload: unknown) => {
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
  }

  /*
   * An auto seal answers its senders before the pending block has restarted on the new head (node.settling(),
   * src/node/node.ts): a request that comes in meanwhile waits for it, so every request answered after a
   * transaction's answer sees the chain and the pending block as they are once its block is sealed.
   */
  const held =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R | Promise<Awaited<R>> => {
      const settling = context.node.settling()
      return settling === undefined ? fn(...args) : (settling.then(() => fn(...args)) as Promise<Awaited<R>>)
    }

  return {
    methods: table,
    call: held(call),
    handle: held(handle),
    respond: held(respond),
    respondText: held(respondText),
  }

  function respondText(text: string): string | undefined | Promise<string | undefined> {
    const request = splitRequest(text)
    const def = request && table.get(request.method)
    const key = def?.readsState ? memo.key(request!.method, request!.params) : undefined
    if (key !== undefined) {
      const found = memo.get(key, resolve)
      if (found !== undefined) return `{"jsonrpc":"2.0","id":${request!.id},"result":${found}}`
    }
    // Parsed whole once: a body that is not JSON gets its -32700 here, a memo miss goes on with the parsed body.
    return respondToText(text, (payload) =>
      (key !== undefined && answerAndKeep(def!, request!, key, payload as { params?: unknown })) || respond(payload),
    )
  }
}

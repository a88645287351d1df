import { type Dispatcher, parseError } from './dispatch.js'
import { q } from './format.js'

/** The part of a dispatcher a transport uses. */
export type Responder = Pick<Dispatcher, 'respond' | 'respondText'>

/**
 * What the HTTP server answers with while the node behind it is still being
 * built (startDevnet listens first, then loads the engine and builds the
 * genesis): every request waits for the node and gets the node's answer,
 * except the chain-identity calls a client polls a starting node with
 * (`eth_chainId`, `net_version`), which the config alone decides when the
 * chain is the config's own dev chain (`chainId` given). Those are answered
 * at once, byte for byte as the node answers them (methods/chain.ts;
 * test/rpc/startupDispatcher.test.ts), so a tool waiting for the node to come
 * up sees it as soon as the socket listens, and its next call waits.
 *
 * Only a single request with an id, the right envelope and no params is
 * answered early; a batch, a notification or anything malformed waits and
 * gets the node's answer (or error). When the node cannot be built,
 * `ready` rejects and waiting requests never settle: the server closing
 * ends their connections.
 */
export function createStartupDispatcher(chainId: bigint | undefined, ready: Promise<Responder>): Responder {
  const early: Record<string, string> = chainId === undefined ? {} : { eth_chainId: q(chainId), net_version: chainId.toString() }
  let settled: Responder | undefined
  const waiting = ready.then(
    (dispatcher) => (settled = dispatcher),
    () => new Promise<never>(() => {}),
  )
  const respond = (payload: unknown) => {
    if (settled) return settled.respond(payload)
    const result = earlyResult(payload, early)
    if (result !== undefined) {
      const { id } = payload as { id: string | number | null }
      return Promise.resolve(JSON.stringify({ jsonrpc: '2.0', id, result }))
    }
    return waiting.then((dispatcher) => dispatcher.respond(payload))
  }
  return {
    respond,
    respondText(text) {
      if (settled) return settled.respondText(text)
      let payload: unknown
      try {
        payload = JSON.parse(text)
      } catch {
        return parseError
      }
      return respond(payload)
    },
  }
}

function earlyResult(payload: unknown, early: Record<string, string>): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined
  const r = payload as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown }
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !Object.hasOwn(early, r.method)) return undefined
  const validId = r.id === null || typeof r.id === 'string' || (typeof r.id === 'number' && Number.isFinite(r.id))
  if (!validId || !(r.params === undefined || (Array.isArray(r.params) && r.params.length === 0))) return undefined
  return early[r.method]
}

import type { Dispatcher } from './dispatch.js'
import { respondToText } from './parseError.js'
import { q } from './format.js'

/** The part of a dispatcher a transport uses. */
export type Responder = Pick<Dispatcher, 'respond' | 'respondText'>

/**
 * What the HTTP server answers with while the node behind it is still being
 * built (startDevnet listens first, then loads the engine and builds the
 * genesis): every request waits for the node and gets the node's answer,
 * except the chain-identity calls a client polls a starting node with
 * (`eth_chainId`, `net_version`), once the chain id is known: from the
 * config alone for the config's own dev chain (`chainId` a bigint); on a
 * fork, when the fork's first upstream read (or its cache, or
 * --fork-chain-id) has told it (`chainId` a promise). Those are answered
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
export function createStartupDispatcher(chainId: bigint | Promise<bigint> | undefined, ready: Promise<Responder>): Responder {
  let early: Record<string, string> = {}
  const known = (id: bigint) => {
    early = { eth_chainId: q(id), net_version: id.toString() }
  }
  if (typeof chainId === 'bigint') known(chainId)
  // Settles when the chain id is learnt; never when it cannot be (the requests then wait for the node, whose start fails).
  const learnt = typeof chainId === 'object' ? chainId.then(known, () => new Promise<never>(() => {})) : undefined
  let settled: Responder | undefined
  const waiting = ready.then(
    (dispatcher) => (settled = dispatcher),
    () => new Promise<never>(() => {}),
  )
  const respond = (payload: unknown) => {
    if (settled) return settled.respond(payload)
    const answer = (result: string) => JSON.stringify({ jsonrpc: '2.0', id: (payload as { id: string | number | null }).id, result })
    const result = earlyResult(payload, early)
    if (result !== undefined) return Promise.resolve(answer(result))
    const node = waiting.then((dispatcher) => dispatcher.respond(payload))
    // Asked before the chain id is learnt: answered when it is, or by the node if that comes first.
    if (learnt && earlyResult(payload, identity) !== undefined)
      return Promise.race([learnt.then(() => answer(earlyResult(payload, early)!)), node])
    return node
  }
  return {
    respond,
    respondText(text) {
      if (settled) return settled.respondText(text)
      return respondToText(text, respond)
    },
  }
}

/** The requests answered early, whatever the answer. */
const identity: Record<string, string> = { eth_chainId: '', net_version: '' }

function earlyResult(payload: unknown, early: Record<string, string>): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined
  const r = payload as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown }
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !Object.hasOwn(early, r.method)) return undefined
  const validId = r.id === null || typeof r.id === 'string' || (typeof r.id === 'number' && Number.isFinite(r.id))
  if (!validId || !(r.params === undefined || (Array.isArray(r.params) && r.params.length === 0))) return undefined
  return early[r.method]
}

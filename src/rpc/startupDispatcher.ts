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
 * On a fork, `earlyRead` answers account reads the upstream (or the disk
 * cache) gives as they are (src/node/fork/earlyReads.ts says which); one it
 * cannot answer waits for the node too. `idle` tells the CLI's front when
 * loading the engine, which keeps the thread for tens of milliseconds at a
 * time, holds up no early answer (src/cli/front.ts).
 *
 * Only a single request with an id and the right envelope (and, for the
 * chain id, no params) is answered early; a batch, a notification or
 * anything malformed waits and gets the node's answer (or error). When the node cannot be built,
 * `ready` rejects and waiting requests never settle: the server closing
 * ends their connections.
 */
export function createStartupDispatcher(
  chainId: bigint | Promise<bigint> | undefined,
  ready: Promise<Responder>,
  earlyRead?: EarlyRead,
): StartupDispatcher {
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
  /** Requests waiting for the node, when each early answer on its way began, and when the last was made (for `idle`). */
  let forNode = 0
  const reading = new Set<{ since: number }>()
  let lastAnswer = -Infinity
  /** When the socket began to listen (this dispatcher's creation), and whether any request has come since. */
  const listening = performance.now()
  let requested = false
  let learning: Promise<void> | undefined
  /** Tracks an early answer on its way until `answer` settles. */
  const onItsWay = <T>(answer: Promise<T>) => {
    const entry = { since: performance.now() }
    reading.add(entry)
    const done = () => void reading.delete(entry)
    answer.then(done, done)
    return answer
  }
  /** The node's answer, once it is built. */
  const fromNode = (payload: unknown) => waiting.then((dispatcher) => dispatcher.respond(payload))
  /** fromNode, counted as a request waiting for the node (which ends `idle`'s waits). */
  const toNode = (payload: unknown) => {
    forNode++
    const node = fromNode(payload)
    const done = () => void forNode--
    node.then(done, done)
    return node
  }
  const respond = (payload: unknown) => {
    if (settled) return settled.respond(payload)
    requested = true
    const answer = (result: string) => {
      lastAnswer = performance.now()
      return JSON.stringify({ jsonrpc: '2.0', id: (payload as { id: string | number | null }).id, result })
    }
    const request = envelope(payload)
    const result = request && earlyResult(request, early)
    if (result !== undefined) return Promise.resolve(answer(result))
    // Not once a request waits for the node: what comes after it (a read pipelined behind a send) waits behind it.
    const read = request && forNode === 0 ? earlyRead?.(request) : undefined
    if (read)
      return onItsWay(read).then(
        (value) => (value !== undefined ? answer(value) : settled ? settled.respond(payload) : toNode(payload)),
        () => toNode(payload),
      )
    // Asked before the chain id is learnt: answered when it is, or by the node if that comes first. The wait for the
    // chain id is one answer on its way, from the first such request (a client polling it does not renew the hold).
    if (learnt && request && earlyResult(request, identity) !== undefined) {
      learning ??= onItsWay(learnt)
      return Promise.race([learnt.then(() => answer(earlyResult(request, early)!)), fromNode(payload)])
    }
    return toNode(payload)
  }
  return {
    respond,
    respondText(text) {
      if (settled) return settled.respondText(text)
      return respondToText(text, respond)
    },
    async idle(maxMs, urgent) {
      const until = performance.now() + maxMs
      for (;;) {
        const now = performance.now()
        // Nothing answered early but the chain id, or a request the node must answer: nothing to wait for.
        if (!earlyRead || settled || forNode > 0 || urgent?.() || now >= until) return
        const quietFor = now - lastAnswer
        // An answer that waits on the upstream longer than `flightMs` (a remote one) no longer holds the loading up.
        const flying = [...reading].some((entry) => now - entry.since < flightMs)
        // The socket has just opened: a client polling for it is about to come (see firstRequestMs).
        const expecting = !requested && now - listening < firstRequestMs
        if (!flying && !expecting && quietFor >= quietMs) return
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(until - now, flying || expecting ? 1 : quietMs - quietFor))))
      }
    },
  }
}

/** A fork's account reads answered before the node is built (src/node/fork/earlyReads.ts). */
export type EarlyRead = (request: Request) => Promise<string | undefined> | undefined

/** A startup dispatcher: a Responder, and when the engine's next step of loading may take the thread. */
export type StartupDispatcher = Responder & {
  /**
   * Resolves once no early answer begun in the last `flightMs` is on its
   * way and none was made in the last `quietMs` (a client that got one may
   * be sending its next request), and a first request came or
   * `firstRequestMs` passed since listening,
   * at once when a request waits for the node (or `urgent()` says something
   * else does), and at the latest after `maxMs`.
   */
  idle(maxMs: number, urgent?: () => boolean): Promise<void>
}

/**
 * How long after an early answer the engine's loading waits for the client's
 * next request: a client takes a few milliseconds between an answer and its
 * next request (viem's or undici's, measured 1-7 ms on the bench machine).
 */
const quietMs = 10

/**
 * How long after the socket listens the engine's loading waits for a first
 * request, when none came yet: a client that started the node polls it
 * (bench/fork.ts every 20 ms, viem's and most harnesses' every 10–50 ms),
 * and a poll that lands in a loading step waits for the step (compiling the
 * CLI from its code cache is one of 20–45 ms), then the fork's account
 * reads after it do, where they are answered early once the poll was. No
 * client within it: the engine loads 30 ms later than it would have.
 */
const firstRequestMs = 30

/**
 * How long an early answer on its way (waiting on the upstream) holds the
 * engine's loading up: a local upstream answers within it (3–7 ms here), and
 * the loading then does not delay its answer; a remote one takes longer, and
 * the loading goes on meanwhile, as it did before any answer was early.
 */
const flightMs = 20

type Request = { jsonrpc: '2.0'; method: string; params?: unknown; id: string | number | null }

/** The requests answered early, whatever the answer. */
const identity: Record<string, string> = { eth_chainId: '', net_version: '' }

/** A single request with the right envelope and an id (a notification, a batch or anything malformed waits for the node). */
function envelope(payload: unknown): Request | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined
  const r = payload as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown }
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return undefined
  const validId = r.id === null || typeof r.id === 'string' || (typeof r.id === 'number' && Number.isFinite(r.id))
  return validId ? (r as Request) : undefined
}

function earlyResult(r: Request, early: Record<string, string>): string | undefined {
  if (!Object.hasOwn(early, r.method)) return undefined
  if (!(r.params === undefined || (Array.isArray(r.params) && r.params.length === 0))) return undefined
  return early[r.method]
}

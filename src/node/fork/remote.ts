import { DevnetError } from '../../errors/base.js'
import type { HttpReply } from './httpClient.js'
import { type Transport, createTransport } from './transport.js'

/**
 * A JSON-RPC read that the forked chain's upstream could not answer: it
 * answered with an error, timed out, refused the connection, or sent
 * something that is not a JSON-RPC reply. The message names the upstream and
 * the method, so the caller sees where the failure is instead of a zero.
 */
export class ForkRemoteError extends DevnetError {
  override readonly name = 'ForkRemoteError' as const
  constructor(
    readonly upstream: string,
    readonly method: string,
    reason: string,
    readonly upstreamCode?: number | undefined,
    readonly upstreamData?: unknown,
  ) {
    super(`fork upstream ${upstream} failed ${method}: ${reason}`)
  }
}

/** Counters of what the client sent, so tests and the bench can prove a warm cache makes no call. */
export type RemoteStats = {
  /** HTTP requests sent, retries included. */
  http: number
  /** JSON-RPC requests sent (a batch counts each of its items). */
  requests: number
  /** Retries after a 429, a 5xx, a timeout or a refused connection. */
  retries: number
}

export type RemoteOptions = {
  url: string
  /** Per HTTP request, in ms (default 30 s). */
  timeoutMs?: number | undefined
  /** Attempts per HTTP request, the first included (default 5). */
  attempts?: number | undefined
  /** Backoff before the first retry, doubled after each (default 100 ms). */
  backoffMs?: number | undefined
  /** Items per JSON-RPC batch (default 100). */
  maxBatch?: number | undefined
  /** Never send: every read not answered by a cache fails (a fork replayed from its recorded cache). */
  offline?: boolean | undefined
  /** How messages name the upstream (default: the URL, redacted). */
  upstream?: string | undefined
  /** Why a read is refused when offline (default: the fork cache has no answer). */
  offlineReason?: string | undefined
  /** The HTTP transport to send on (default: a new one for `url`); the client closes it. */
  transport?: Transport | undefined
  /**
   * An HTTP request already sent on `transport` (a fork's first reads, firstReads.ts): the client's first
   * attempt at a request of exactly this body takes this reply instead of sending it again.
   */
  preSent?: { body: string; reply: Promise<HttpReply> } | undefined
}

type Waiter = { resolve(value: unknown): void; reject(error: unknown): void }
type Queued = { method: string; params: unknown[]; key: string; waiters: Waiter[] }

/**
 * A JSON-RPC client for a fork's upstream. Reads asked in the same tick go
 * out as one JSON-RPC batch; a read identical to one already in flight waits
 * for that one instead of being sent again (a cold token transfer asks for
 * the same account from several places at once). A 429, a 5xx, a timeout or
 * a network failure is retried with exponential backoff; anything else, or
 * the last failure, rejects every waiter with a ForkRemoteError.
 */
export function createRemote(options: RemoteOptions) {
  const url = options.url
  const upstream = options.upstream ?? redact(url)
  const timeoutMs = options.timeoutMs ?? 30_000
  const attempts = options.attempts ?? 5
  const backoffMs = options.backoffMs ?? 100
  const maxBatch = options.maxBatch ?? 100
  const stats: RemoteStats = { http: 0, requests: 0, retries: 0 }
  // Kept-alive connections, a few at once (reads of concurrent requests go out in parallel).
  const transport = options.transport ?? createTransport(url, 8)
  let preSent = options.preSent
  const inFlight = new Map<string, Queued>()
  let queue: Queued[] = []
  let scheduled = false
  let nextId = 1

  /** Sends one HTTP request with `body`; retries the transient failures. */
  async function post(body: unknown, what: string): Promise<unknown> {
    const data = JSON.stringify(body)
    let lastReason = ''
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) {
        stats.retries++
        await new Promise((r) => setTimeout(r, backoffMs * 2 ** (attempt - 1)))
      }
      stats.http++
      let reply: { status: number; text: string }
      try {
        const sent = attempt === 0 && preSent?.body === data ? preSent.reply : undefined
        if (sent) preSent = undefined
        reply = await (sent ?? transport.post(data, timeoutMs))
      } catch (error) {
        lastReason = (error as Error).message
        continue
      }
      const { status, text } = reply
      if (status === 429 || status >= 500) {
        lastReason = `HTTP ${status}`
        continue
      }
      if (status < 200 || status >= 300) throw new ForkRemoteError(upstream, what, `HTTP ${status}: ${text.slice(0, 200)}`)
      try {
        return JSON.parse(text)
      } catch {
        throw new ForkRemoteError(upstream, what, `malformed reply (not JSON): ${JSON.stringify(text.slice(0, 100))}`)
      }
    }
    throw new ForkRemoteError(upstream, what, `${lastReason} (after ${attempts} attempts)`)
  }

  async function flush() {
    scheduled = false
    const items = queue
    queue = []
    for (let i = 0; i < items.length; i += maxBatch) void send(items.slice(i, i + maxBatch))
  }

  async function send(items: Queued[]) {
    const ids = items.map(() => nextId++)
    const single = items.length === 1
    const payload = items.map((item, i) => ({ jsonrpc: '2.0', id: ids[i], method: item.method, params: item.params }))
    stats.requests += items.length
    const what = single ? items[0]!.method : `a batch of ${items.length} (${[...new Set(items.map((i) => i.method))].join(', ')})`
    const settle = (item: Queued, fn: (w: Waiter) => void) => {
      inFlight.delete(item.key)
      for (const waiter of item.waiters) fn(waiter)
    }
    let reply: unknown
    try {
      reply = await post(single ? payload[0] : payload, what)
    } catch (error) {
      for (const item of items) settle(item, (w) => w.reject(error))
      return
    }
    const replies = Array.isArray(reply) ? reply : [reply]
    const byId = new Map<unknown, { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }>()
    for (const r of replies) if (r && typeof r === 'object' && 'id' in r) byId.set((r as { id: unknown }).id, r as never)
    items.forEach((item, i) => {
      const r = byId.get(ids[i])
      if (!r) return settle(item, (w) => w.reject(new ForkRemoteError(upstream, item.method, 'malformed reply (no response with the request id)')))
      if (r.error) {
        const code = typeof r.error.code === 'number' ? r.error.code : undefined
        const message = typeof r.error.message === 'string' ? r.error.message : JSON.stringify(r.error)
        const error = new ForkRemoteError(upstream, item.method, `error ${code ?? '?'}: ${message}`, code, r.error.data)
        return settle(item, (w) => w.reject(error))
      }
      if (!('result' in r)) return settle(item, (w) => w.reject(new ForkRemoteError(upstream, item.method, 'malformed reply (no result)')))
      settle(item, (w) => w.resolve(r.result))
    })
  }

  return {
    url,
    /** Closes the kept-alive connections (a closed fork's sockets must not keep the process alive). */
    close() {
      transport.close()
    },
    /** The URL as shown in messages (credentials and query removed). */
    upstream,
    stats,
    /** One read; batched with the others of this tick, coalesced with an identical one in flight. */
    request<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
      if (options.offline) return Promise.reject(new ForkRemoteError(upstream, method, options.offlineReason ?? 'offline, and the fork cache has no answer for it'))
      const key = `${method}:${JSON.stringify(params)}`
      return new Promise<T>((resolve, reject) => {
        const waiter = { resolve: resolve as (v: unknown) => void, reject }
        const pending = inFlight.get(key)
        if (pending) return pending.waiters.push(waiter)
        const item = { method, params, key, waiters: [waiter] }
        inFlight.set(key, item)
        queue.push(item)
        if (!scheduled) {
          scheduled = true
          // After the current burst of reads (a Promise.all of them) has queued: one batch.
          setImmediate(flush)
        }
      })
    },
  }
}

export type Remote = ReturnType<typeof createRemote>

/** The URL without user info, path secrets or query (API keys are often there). */
export function redact(url: string): string {
  try {
    const u = new URL(url)
    const path = u.pathname.length > 1 && /[0-9a-f]{16,}|[A-Za-z0-9_-]{24,}/.test(u.pathname) ? '/…' : u.pathname
    return `${u.protocol}//${u.host}${path === '/' ? '' : path}`
  } catch {
    return 'the fork url'
  }
}

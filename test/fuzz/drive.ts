/**
 * Sends generated cases to a running devnet over HTTP and WebSocket and
 * judges every reply. Cases go in bursts: the batchable requests of a burst
 * travel as JSON-RPC batches per transport, each within the body limit, the
 * whole-frame cases one by one; after each burst both transports must answer eth_blockNumber. The
 * report counts what a user would call a crash (-32603, HTTP 500, a dropped
 * connection), a wrong code, a leak (a stack or a source path in an error)
 * and a hang (no answer within `timeoutMs`).
 */
import WebSocket from 'ws'
import { seededRandom } from '../evm/generators.js'
import { type Case, type Expect, generateCases } from './generate.js'

export type Finding = {
  index: number
  label: string
  transport: 'http' | 'ws'
  kind: 'crash' | 'wrong code' | 'leak' | 'hang' | 'malformed reply'
  problem: string
  sent: string
  reply: string
}

export type FuzzReport = {
  seed: number
  cases: number
  http: number
  ws: number
  findings: Finding[]
  counts: Record<Finding['kind'], number>
  elapsedMs: number
  /** CPU time of this process (the devnet runs in it too): a figure the machine's load does not inflate as much. */
  cpuMs: number
}

export type FuzzOptions = {
  url: string
  wsUrl: string
  seed: number
  cases: number
  /** Served method names (from the registry). */
  methods: readonly string[]
  /** The devnet's bodyLimit: oversize cases are built just past it. */
  bodyLimit: number
  /** Cases between two liveness probes. */
  burst?: number
  /** A reply slower than this is a hang (a detector for a node that stopped answering, not a speed check). */
  timeoutMs?: number
  onBurst?: (done: number) => void
}

const short = (value: unknown, max = 300) => {
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('latin1') : JSON.stringify(value)
  return text === undefined ? String(value) : text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text
}

/** A stack frame, a source file with a line, a module path, or this machine's working directory: never in an error. */
const leakPattern = /\bat [\w.<>$]+ \(|\.(?:ts|js|mjs|cjs):\d+|node_modules|file:\/\/|\/src\/(?:rpc|node|evm|server)\//
const leaks = (error: unknown) => {
  const text = JSON.stringify(error)
  return leakPattern.test(text) || text.includes(process.cwd())
}

/** Judges one response object; undefined when it is correct. */
export function judge(response: unknown, id: unknown, expect: Expect): Pick<Finding, 'kind' | 'problem'> | undefined {
  if (typeof response !== 'object' || response === null || Array.isArray(response))
    return { kind: 'malformed reply', problem: 'not a response object' }
  const r = response as Record<string, unknown>
  if (r.jsonrpc !== '2.0') return { kind: 'malformed reply', problem: 'jsonrpc is not "2.0"' }
  if (!('id' in r)) return { kind: 'malformed reply', problem: 'no id' }
  // Compared as JSON: -0 and 0 are one id on the wire.
  if (id !== undefined && JSON.stringify(r.id) !== JSON.stringify(id)) return { kind: 'malformed reply', problem: `id ${short(r.id)}, want ${short(id)}` }
  if ('result' in r === 'error' in r) return { kind: 'malformed reply', problem: 'needs exactly one of result and error' }
  if ('result' in r) return expect.result ? undefined : { kind: 'wrong code', problem: 'a result where an error was due' }
  const error = r.error as { code?: unknown; message?: unknown }
  if (typeof error !== 'object' || error === null || !Number.isInteger(error.code) || typeof error.message !== 'string')
    return { kind: 'malformed reply', problem: 'error is not { code: integer, message: string }' }
  if (leaks(error)) return { kind: 'leak', problem: 'a stack trace or a source path in the error' }
  if (error.code === -32603) return { kind: 'crash', problem: `internal error: ${short(error.message)}` }
  if (!expect.codes.includes(error.code as number))
    return { kind: 'wrong code', problem: `code ${error.code} (${short(error.message, 120)}), want ${expect.codes.join(' or ') || 'a result'}` }
  return undefined
}

class Hang extends Error {}

/**
 * Splits a burst's request cases into JSON-RPC batches of at most `limit`
 * bytes each. The oracle promises a verdict on every request case, and a
 * batch past the body limit is refused whole (HTTP 413; on WebSocket the
 * connection closes with 1009, as geth's read limit does), so one batch
 * per burst made the driver itself send oversize frames when a burst
 * happened to hold several large arguments (seed 795553351: 1,069,807
 * bytes). What the node does past the limit is the job of the
 * 'body over the limit' cases. A request that alone is past the limit
 * travels alone and is judged as one of those.
 */
export function packBatches<C extends { request: unknown }>(requests: readonly C[], limit: number): { cases: C[]; body: string; oversize: boolean }[] {
  const batches: { cases: C[]; body: string; oversize: boolean }[] = []
  let cases: C[] = []
  let parts: string[] = []
  let bytes = 2 // the brackets
  const flush = () => {
    if (cases.length === 0) return
    batches.push({ cases, body: `[${parts.join(',')}]`, oversize: bytes > limit })
    cases = []
    parts = []
    bytes = 2
  }
  for (const c of requests) {
    const part = JSON.stringify(c.request)
    const size = Buffer.byteLength(part)
    // +1: the comma before every item but the first.
    if (cases.length > 0 && bytes + 1 + size > limit) flush()
    bytes += size + (cases.length > 0 ? 1 : 0)
    cases.push(c)
    parts.push(part)
  }
  flush()
  return batches
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Hang(`no reply within ${ms} ms`)), ms)
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (clearTimeout(timer), reject(error)),
    )
  })

/** One WebSocket connection that sends a frame and waits for the next reply (notifications skipped). */
async function connect(url: string) {
  const socket = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  let waiter: ((reply: { data?: string; closed?: number }) => void) | undefined
  const queue: string[] = []
  let closed: number | undefined
  socket.on('message', (data) => {
    const text = data.toString()
    if (text.startsWith('{"jsonrpc":"2.0","method":"eth_subscription"')) return
    if (waiter) {
      const w = waiter
      waiter = undefined
      w({ data: text })
    } else queue.push(text)
  })
  socket.on('close', (code) => {
    closed = code
    waiter?.({ closed: code })
  })
  socket.on('error', () => {})
  return {
    /** Sends a frame that gets no reply (a notification). */
    post(frame: string | Buffer) {
      if (closed === undefined) socket.send(frame)
    },
    /** The next reply after sending `frame`, or the close code when the server closed the connection. */
    send(frame: string | Buffer): Promise<{ data?: string; closed?: number }> {
      if (closed !== undefined) return Promise.resolve({ closed })
      socket.send(frame)
      return new Promise((resolve) => {
        const next = queue.shift()
        if (next !== undefined) resolve({ data: next })
        else waiter = resolve
      })
    },
    get closed() {
      return closed
    },
    close: () => socket.terminate(),
  }
}

/**
 * Runs `cases` cases from `seed`: each goes over HTTP or WebSocket (picked
 * from the seed too), and returns what went wrong.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { url, wsUrl, seed, methods, bodyLimit, burst = 200, timeoutMs = 30_000 } = options
  const started = Date.now()
  const cases = generateCases(seed, options.cases, methods, bodyLimit)
  const route = seededRandom(seed ^ 0x5eed)
  const findings: Finding[] = []
  const lanes: { ws: Awaited<ReturnType<typeof connect>> }[] = await Promise.all(
    Array.from({ length: 5 }, async () => ({ ws: await connect(wsUrl) })),
  )
  let sentHttp = 0
  let sentWs = 0
  const note = (c: Case, transport: Finding['transport'], found: Pick<Finding, 'kind' | 'problem'>, reply: unknown) =>
    findings.push({
      index: c.index,
      label: c.label,
      transport,
      ...found,
      sent: short(c.kind === 'request' ? c.request : c.frame),
      reply: short(reply),
    })

  const post = async (body: string | Buffer) => {
    const response = await withTimeout(
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      timeoutMs,
    )
    return { status: response.status, text: await withTimeout(response.text(), timeoutMs) }
  }

  /** Judges the reply of a whole frame (`reply` undefined: nothing came back). */
  const judgeFrame = (c: Case & { kind: 'frame' }, transport: Finding['transport'], text: string | undefined) => {
    if (c.reply === 'none') {
      if (text) note(c, transport, { kind: 'malformed reply', problem: 'a reply to a notification' }, text)
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text ?? '')
    } catch {
      return note(c, transport, { kind: 'malformed reply', problem: 'reply is not JSON' }, text)
    }
    if (c.reply === 'single') {
      const found = judge(parsed, c.id, c.expect)
      if (found) note(c, transport, found, parsed)
      return
    }
    if (!Array.isArray(parsed)) {
      // A batch that is refused as a whole (empty, too large) still answers with one error.
      const found = judge(parsed, null, { ...c.expect, result: false })
      if (found) note(c, transport, found, parsed)
      return
    }
    for (const item of parsed) {
      const found = judge(item, undefined, c.expect)
      if (found) return note(c, transport, found, item)
    }
  }

  /** Judges the items of a batch of request cases. */
  const judgeBatch = (batch: (Case & { kind: 'request' })[], transport: Finding['transport'], text: string) => {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      for (const c of batch) note(c, transport, { kind: 'malformed reply', problem: 'batch reply is not JSON' }, text)
      return
    }
    if (!Array.isArray(parsed)) {
      for (const c of batch) note(c, transport, { kind: 'malformed reply', problem: 'batch reply is not an array' }, parsed)
      return
    }
    const byId = new Map(parsed.map((r) => [JSON.stringify((r as { id?: unknown })?.id), r]))
    for (const c of batch) {
      const response = byId.get(JSON.stringify(c.request.id))
      if (response === undefined) {
        note(c, transport, { kind: 'malformed reply', problem: 'no reply with this id in the batch' }, parsed.length)
        continue
      }
      const found = judge(response, c.request.id, c.expect)
      if (found) note(c, transport, found, response)
    }
  }

  const overHttp = async (requests: (Case & { kind: 'request' })[], frames: (Case & { kind: 'frame' })[]) => {
    const jobs: Promise<void>[] = []
    for (const { cases: batch, body, oversize } of packBatches(requests, bodyLimit))
      jobs.push(
        post(body).then(
          ({ status, text }) => {
            if (status >= 500) for (const c of batch) note(c, 'http', { kind: 'crash', problem: `HTTP ${status}` }, text)
            else if (oversize) {
              if (status !== 413) for (const c of batch) note(c, 'http', { kind: 'wrong code', problem: `HTTP ${status}, want 413` }, text)
            } else judgeBatch(batch, 'http', text)
          },
          (error) => {
            for (const c of batch) note(c, 'http', { kind: error instanceof Hang ? 'hang' : 'crash', problem: String(error) }, '')
          },
        ),
      )
    for (const c of frames)
      jobs.push(
        post(c.frame).then(
          ({ status, text }) => {
            if (status >= 500) return void note(c, 'http', { kind: 'crash', problem: `HTTP ${status}` }, text)
            if (c.oversize && status !== 413) note(c, 'http', { kind: 'wrong code', problem: `HTTP ${status}, want 413` }, text)
            if (c.reply === 'none' && status !== 204) note(c, 'http', { kind: 'malformed reply', problem: `HTTP ${status}, want 204` }, text)
            judgeFrame(c, 'http', text)
          },
          (error) => void note(c, 'http', { kind: error instanceof Hang ? 'hang' : 'crash', problem: String(error) }, ''),
        ),
      )
    sentHttp += requests.length + frames.length
    await Promise.all(jobs)
  }

  type Lane = { ws: Awaited<ReturnType<typeof connect>> }
  const sendOn = async (lane: Lane, frame: string | Buffer) => {
    if (lane.ws.closed !== undefined) lane.ws = await connect(wsUrl)
    return withTimeout(lane.ws.send(frame), timeoutMs)
  }
  const reconnect = async (lane: Lane) => {
    lane.ws.close()
    lane.ws = await connect(wsUrl)
  }
  const probe = JSON.stringify({ jsonrpc: '2.0', id: 'probe', method: 'eth_blockNumber', params: [] })

  /** One connection's share of a burst's frames, one at a time: each reply is the one to the frame before it. */
  const frameLane = async (lane: Lane, frames: (Case & { kind: 'frame' })[]) => {
    for (const c of frames) {
      try {
        if (c.reply === 'none') {
          // Nothing may come back: the next reply must be the probe's.
          if (lane.ws.closed !== undefined) lane.ws = await connect(wsUrl)
          lane.ws.post(c.frame)
          const after = await sendOn(lane, probe)
          if (!after.data?.includes('"id":"probe"')) note(c, 'ws', { kind: 'malformed reply', problem: 'a reply to a notification' }, after)
          continue
        }
        const reply = await sendOn(lane, c.frame)
        if (c.oversize) {
          // ws closes a connection whose message passes maxPayload with 1009 (message too big), as geth does.
          if (reply.closed !== 1009) note(c, 'ws', { kind: 'wrong code', problem: `want close 1009, got ${short(reply)}` }, reply)
          continue
        }
        if (reply.data === undefined) {
          note(c, 'ws', { kind: 'crash', problem: `connection closed (${reply.closed})` }, '')
          continue
        }
        judgeFrame(c, 'ws', reply.data)
      } catch (error) {
        note(c, 'ws', { kind: error instanceof Hang ? 'hang' : 'crash', problem: String(error) }, '')
        await reconnect(lane)
      }
    }
  }

  const overWs = async (requests: (Case & { kind: 'request' })[], frames: (Case & { kind: 'frame' })[]) => {
    const batch = async () => {
      const lane = lanes[0]!
      for (const { cases: batch, body, oversize } of packBatches(requests, bodyLimit)) {
        try {
          const reply = await sendOn(lane, body)
          if (oversize) {
            if (reply.closed !== 1009) for (const c of batch) note(c, 'ws', { kind: 'wrong code', problem: `want close 1009, got ${short(reply)}` }, reply)
          } else if (reply.data === undefined)
            for (const c of batch) note(c, 'ws', { kind: 'crash', problem: `connection closed (${reply.closed})` }, '')
          else judgeBatch(batch, 'ws', reply.data)
        } catch (error) {
          for (const c of batch) note(c, 'ws', { kind: error instanceof Hang ? 'hang' : 'crash', problem: String(error) }, '')
          await reconnect(lane)
        }
      }
    }
    // The batch on the first connection, the frames spread over the others.
    const shares = lanes.slice(1).map((_, i) => frames.filter((_, j) => j % (lanes.length - 1) === i))
    await Promise.all([batch(), ...shares.map((share, i) => frameLane(lanes[i + 1]!, share))])
    sentWs += requests.length + frames.length
  }

  /** Both transports answer eth_blockNumber after a burst, or the burst's last case is blamed for a hang. */
  const alive = async (last: Case) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'eth_blockNumber', params: [] })
    try {
      const { text } = await post(body)
      if (!/"result":"0x[0-9a-f]+"/.test(text)) throw new Error(`eth_blockNumber answered ${short(text)}`)
      const reply = await sendOn(lanes[0]!, body)
      if (!reply.data || !/"result":"0x[0-9a-f]+"/.test(reply.data)) throw new Error(`eth_blockNumber over WebSocket answered ${short(reply)}`)
    } catch (error) {
      note(last, 'http', { kind: 'hang', problem: `after the burst: ${String(error)}` }, '')
    }
  }

  const cpu = process.cpuUsage()
  for (let start = 0; start < cases.length; start += burst) {
    const slice = cases.slice(start, start + burst)
    const http = { requests: [] as (Case & { kind: 'request' })[], frames: [] as (Case & { kind: 'frame' })[] }
    const socket = { requests: [] as (Case & { kind: 'request' })[], frames: [] as (Case & { kind: 'frame' })[] }
    for (const c of slice) {
      const to = route.chance(0.5) ? http : socket
      if (c.kind === 'request') to.requests.push(c)
      else to.frames.push(c)
    }
    await Promise.all([overHttp(http.requests, http.frames), overWs(socket.requests, socket.frames)])
    await alive(slice[slice.length - 1]!)
    options.onBurst?.(start + slice.length)
  }
  for (const lane of lanes) lane.ws.close()

  const counts = { crash: 0, 'wrong code': 0, leak: 0, hang: 0, 'malformed reply': 0 }
  for (const f of findings) counts[f.kind]++
  const used = process.cpuUsage(cpu)
  return {
    seed,
    cases: cases.length,
    http: sentHttp,
    ws: sentWs,
    findings,
    counts,
    elapsedMs: Date.now() - started,
    cpuMs: Math.round((used.user + used.system) / 1000),
  }
}

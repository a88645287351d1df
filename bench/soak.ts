/**
 * `npm run soak -- --minutes N`: a long mixed load against a devnet, to see
 * that it stays bounded. Starts `devnet start` in a child process (interval
 * mining, 1 s blocks) unless `--url` names a running one, then for N minutes:
 *
 * - workers send reads (eth_blockNumber, eth_getBalance latest/pending,
 *   eth_getBlockByNumber, eth_call), eth_sendTransaction (ETH and token
 *   transfers, so blocks carry logs), eth_getLogs over the last 50 blocks,
 *   eth_simulateV1, and eth_newFilter / eth_newBlockFilter that are never
 *   uninstalled (a third are polled once, then forgotten);
 * - `--connections` WebSocket connections (1000) are opened over the run,
 *   each subscribes to newHeads, logs and newPendingTransactions, lives a few
 *   seconds and is dropped, half closed cleanly and half cut.
 *
 * Each minute prints the devnet's RSS, its JS heap used/total and external
 * memory (devnet_memory: heap growth is retained objects or headroom, RSS
 * alone does not say which), its installed filters and node event
 * listeners (devnet_status `resources`), and latency percentiles per kind of
 * request. At the end every connection is gone, so the listeners must be back
 * to where they started. Figures on a loaded machine are noise: read the
 * trend, not the numbers.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { encodeFunctionData } from 'viem'
import WebSocket from 'ws'
import { tokenAbi } from '../src/payments/abi.js'

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    url: { type: 'string' },
    connections: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '8' },
    rate: { type: 'string', default: '150' },
    // Leaves the polling filters out (their share goes to reads): to tell their memory from the chain's.
    'no-filters': { type: 'boolean', default: false },
  },
})
const minutes = Number(values.minutes)
const connections = Number(values.connections)
const workers = Number(values.workers)
const rate = Number(values.rate)
const durationMs = minutes * 60_000
const token = '0x3009300930093009300930093009300930093009'
const accounts = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65', '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  '0x976ea74026e726554db657fa54763abd0c3a0aa9', '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abaf7f8a8e', '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
] as const

async function startChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['bin/devnet.js', 'start', '--port', '0', '--quiet', '--mining', 'interval', '--block-time', '1000'],
    { env: { ...process.env, DEVNET_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /Listening on (\S+)/.exec(out)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`devnet exited with ${code}`)))
  })
  return { url, child }
}

const rssMb = (pid: number | undefined) => {
  if (pid === undefined) return undefined
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : undefined
}

const { url, child } = values.url ? { url: values.url, child: undefined } : await startChild()
const wsUrl = url.replace(/^http/, 'ws')
let id = 0
async function rpc(method: string, params: unknown[] = []): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`)
  return body.result
}

type Kind = 'read' | 'send' | 'getLogs' | 'simulate' | 'filter' | 'ws open'
const latencies = new Map<Kind, number[]>()
const errors = new Map<string, number>()
let ops = 0
const timed = async (kind: Kind, fn: () => Promise<unknown>) => {
  const started = performance.now()
  try {
    await fn()
    ops++
  } catch (error) {
    const key = String((error as Error).message).slice(0, 100)
    errors.set(key, (errors.get(key) ?? 0) + 1)
  } finally {
    let list = latencies.get(kind)
    if (!list) latencies.set(kind, (list = []))
    list.push(performance.now() - started)
  }
}

const transfer = (to: string) => encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to as `0x${string}`, 1n] })
const balanceOf = (who: string) => encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [who as `0x${string}`] })
const filters: string[] = []

/** One worker: one dev account (so its sends never race for a nonce), a request every `workers / rate` s. */
async function worker(index: number, until: number) {
  const from = accounts[index % accounts.length]!
  const to = accounts[(index + 1) % accounts.length]!
  const pause = (workers / rate) * 1000
  let n = 0
  while (Date.now() < until) {
    const roll = Math.random()
    n++
    if (roll < 0.45 || (roll >= 0.9 && values['no-filters'])) {
      const pick = n % 4
      await timed('read', () =>
        pick === 0
          ? rpc('eth_blockNumber')
          : pick === 1
            ? rpc('eth_getBalance', [from, n % 2 ? 'latest' : 'pending'])
            : pick === 2
              ? rpc('eth_getBlockByNumber', ['latest', false])
              : rpc('eth_call', [{ to: token, data: balanceOf(from) }, 'latest']),
      )
    } else if (roll < 0.7) {
      await timed('send', () =>
        rpc('eth_sendTransaction', [n % 2 ? { from, to, value: '0x1' } : { from, to: token, data: transfer(to) }]),
      )
    } else if (roll < 0.8) {
      await timed('getLogs', async () => {
        const head = BigInt(await rpc('eth_blockNumber'))
        const fromBlock = head > 50n ? head - 50n : 0n
        return rpc('eth_getLogs', [{ fromBlock: `0x${fromBlock.toString(16)}`, toBlock: 'latest', address: token }])
      })
    } else if (roll < 0.9) {
      await timed('simulate', () =>
        rpc('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from, to: token, data: transfer(to) }, { from, to, value: '0x1' }] }] }, 'latest']),
      )
    } else {
      await timed('filter', async () => {
        const filter = await rpc(n % 2 ? 'eth_newFilter' : 'eth_newBlockFilter', n % 2 ? [{ address: token }] : [])
        filters.push(filter)
        if (n % 3 === 0) await rpc('eth_getFilterChanges', [filter])
      })
    }
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
}

/** Opens `connections` WebSocket connections spread over the run; each subscribes, lives 1–8 s, and is dropped. */
async function churn(until: number) {
  // Spread over 95% of the run so the last ones open before the workers stop.
  const every = (durationMs * 0.95) / connections
  const open = new Set<WebSocket>()
  let opened = 0
  const one = () =>
    timed('ws open', async () => {
      const socket = new WebSocket(wsUrl)
      socket.on('error', () => {})
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve())
        socket.once('error', reject)
      })
      open.add(socket)
      opened++
      const subscribe = (params: unknown[], i: number) => socket.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params }))
      subscribe(['newHeads'], 1)
      subscribe(['logs', { address: token }], 2)
      subscribe(['newPendingTransactions'], 3)
      const drop = () => {
        open.delete(socket)
        if (opened % 2) socket.terminate()
        else socket.close()
      }
      setTimeout(drop, 1000 + Math.random() * 7000)
    })
  const jobs: Promise<void>[] = []
  const start = Date.now()
  for (let i = 0; i < connections && Date.now() < until; i++) {
    jobs.push(one())
    // Paced against the start, not the last timer: a late timer on a loaded machine does not lose connections.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + (i + 1) * every - Date.now())))
  }
  await Promise.all(jobs)
  return { opened: () => opened, open }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0)
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

const started = Date.now()
const until = started + durationMs
const baseline = (await rpc('devnet_status')).resources
console.log(
  `soak: ${minutes} min against ${url}${child ? ` (pid ${child.pid})` : ''}, ${workers} workers at ~${rate} req/s, ${connections} WebSocket connections; listeners at start: ${baseline.listeners}`,
)
console.log('min   RSS MB  heap MB (used/total)  ext MB  filters  listeners  ops    errors  latency ms p50/p95/p99/max per kind')
let minute = 0
const report = async () => {
  minute++
  const status = await rpc('devnet_status')
  const memory = (await rpc('devnet_memory')) as { heapUsed: number; heapTotal: number; external: number }
  const kinds = [...latencies].map(([kind, list]) => {
    const sorted = list.sort((a, b) => a - b)
    return `${kind} ${[50, 95, 99].map((p) => percentile(sorted, p).toFixed(0)).join('/')}/${(sorted[sorted.length - 1] ?? 0).toFixed(0)}`
  })
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0)
  console.log(
    `${String(minute).padEnd(5)} ${(rssMb(child?.pid)?.toFixed(0) ?? '-').padEnd(7)} ${`${mb(memory.heapUsed)}/${mb(memory.heapTotal)}`.padEnd(21)} ${mb(memory.external).padEnd(7)} ${String(status.resources.filters).padEnd(8)} ${String(status.resources.listeners).padEnd(10)} ${String(ops).padEnd(6)} ${String(errorCount).padEnd(7)} ${kinds.join(', ')}`,
  )
  latencies.clear()
  ops = 0
}
const ticker = setInterval(() => void report(), 60_000)
const [, sockets] = await Promise.all([Promise.all(Array.from({ length: workers }, (_, i) => worker(i, until))), churn(until)])
clearInterval(ticker)
if (Date.now() - started > minute * 60_000 + 5_000) await report()

// Every connection is closed: their subscriptions must be gone from the node.
for (const socket of sockets.open) socket.terminate()
let end = (await rpc('devnet_status')).resources
for (let i = 0; i < 100 && end.listeners > baseline.listeners; i++) {
  await new Promise((resolve) => setTimeout(resolve, 100))
  end = (await rpc('devnet_status')).resources
}
console.log(
  `soak: ${sockets.opened()} WebSocket connections opened and closed; node listeners ${baseline.listeners} at start, ${end.listeners} at the end (${end.listeners === baseline.listeners ? 'all freed' : 'LEAK'}); ${end.filters} filters installed (${filters.length} created, expire after 5 min idle)`,
)
if (errors.size > 0) console.log('errors:', Object.fromEntries(errors))
console.log(`final RSS ${rssMb(child?.pid)?.toFixed(0) ?? '-'} MB`)
child?.kill('SIGTERM')
process.exitCode = end.listeners === baseline.listeners ? 0 : 1

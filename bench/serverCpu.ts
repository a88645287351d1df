/**
 * Server CPU per request of the harness' read rows (bal1: eth_getBalance
 * with 1 in flight, bal32: with 32, call32: eth_call balanceOf with 32), two
 * builds side by side: both servers run at once (from source, `devnet start
 * --mining auto`), and each round loads A, B, B, A with the same fixed number
 * of requests, so both see the same machine load. The client is this
 * process; a server's CPU is the sum of its threads' run time
 * (/proc/<pid>/task/<tid>/schedstat, nanoseconds) over the requests, so it
 * counts what the server's kernel calls cost too. Prints each row's CPU per
 * request per round, the medians and B's change, and a wall req/s figure
 * (noise on a shared machine).
 *
 *   npx tsx bench/serverCpu.ts --a DIR        # DIR: another checkout's src/ (A); B is this checkout's src/
 *   options: --rounds N (default 6), --rows bal1,bal32,call32, --requests N (per row and run, default 30000),
 *   --b DIR (B from another src/ too)
 */
import { join } from 'node:path'
import { root, startSourceDevnet } from './peerProcess.js'
import { makeRpc, readRequests } from './readClient.js'
import { threadsCpuMs } from './threadCpu.js'

const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const rounds = Number(option('--rounds') ?? 6)
const requests = Number(option('--requests') ?? 30_000)
const rows = (option('--rows') ?? 'bal1,bal32,call32').split(',')
const srcA = option('--a')
const srcB = option('--b') ?? join(root, 'src')
if (!srcA) throw new Error('--a DIR: the src/ of the build to compare against')


/** `count` requests with `concurrency` in flight; the server's CPU µs per request and the wall req/s. */
async function load(pid: number, concurrency: number, count: number, fn: () => Promise<unknown>) {
  let left = count
  const cpu0 = threadsCpuMs(pid)
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await fn()
    }),
  )
  const seconds = (performance.now() - t0) / 1000
  return { us: ((threadsCpuMs(pid) - cpu0) * 1000) / count, rps: count / seconds }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

async function main() {
  const servers = await Promise.all(
    [srcA!, srcB].map(async (src) => {
      const server = await startSourceDevnet({ src })
      const rpc = makeRpc(server.url)
      const reads = await readRequests(rpc)
      return { ...server, rpc, reads }
    }),
  )
  try {
    const spec: Record<string, [number, 'balance' | 'call']> = { bal1: [1, 'balance'], bal32: [32, 'balance'], call32: [32, 'call'], call1: [1, 'call'] }
    // The harness' warm-up (8 in flight), longer: the JIT settles over the first tens of thousands of requests.
    for (const s of servers) for (const row of rows) await load(s.pid, 8, 20_000, s.reads[spec[row]![1]])
    const results = new Map<string, { us: number[]; rps: number[] }[]>(rows.map((r) => [r, [0, 1].map(() => ({ us: [], rps: [] }))]))
    for (let round = 0; round < rounds; round++) {
      for (const row of rows) {
        const [concurrency, kind] = spec[row]!
        const line: string[] = []
        for (const which of [0, 1, 1, 0]) {
          const s = servers[which]!
          const m = await load(s.pid, concurrency, requests, s.reads[kind])
          results.get(row)![which]!.us.push(m.us)
          results.get(row)![which]!.rps.push(m.rps)
          line.push(`${'AB'[which]} ${m.us.toFixed(2)}`)
        }
        console.log(`round ${round + 1} ${row.padEnd(6)} µs/req: ${line.join('  ')}`)
      }
    }
    console.log(`\nserver CPU per request (median of ${rounds * 2} runs of ${requests} requests each), wall req/s (median)`)
    for (const row of rows) {
      const [a, b] = results.get(row)!
      const ma = median(a!.us)
      const mb = median(b!.us)
      console.log(
        `${row.padEnd(6)} A ${ma.toFixed(2)} µs  B ${mb.toFixed(2)} µs  (${(((mb - ma) / ma) * 100).toFixed(1)}%)   ` +
          `req/s A ${Math.round(median(a!.rps))}  B ${Math.round(median(b!.rps))}`,
      )
    }
  } finally {
    for (const s of servers) s.rpc.close()
    await Promise.all(servers.map((s) => s.stop()))
  }
}

await main()

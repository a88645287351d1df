/**
 * The shared harness' read steps (b, c) against one devnet, for A/B runs and
 * CPU profiles of the read path without the whole harness: eth_getBalance of
 * account 0 at `latest` with 1 and 32 requests in flight, and eth_call
 * `balanceOf(account0)` on the harness' BenchToken at `latest` with 32 in
 * flight, each request sent the way the harness sends it (node:http,
 * keep-alive agent, a fresh id per request, the body JSON-parsed). Besides
 * req/s it prints the server's CPU time per request (user + system of the
 * server process, from /proc, split in user and system time), the figure that
 * stays meaningful on a shared machine.
 *
 *   npx tsx bench/readpath.ts                 # spawns `devnet start --mining auto` from src/
 *   npx tsx bench/readpath.ts --prof DIR      # the same, the server under node --cpu-prof (profile in DIR)
 * The last row, calld32, asks balanceOf of a new holder every time (no two
 * calls alike): the cost of a call the eth_call memo cannot answer.
 *
 *   options: --seconds N (per loop, default 3), --only bal1,bal32,call32,call1,calld32, --rounds N,
 *   --src DIR (run the server from another checkout's src/, for A/B runs)
 */
import { readFileSync } from 'node:fs'
import { startSourceDevnet } from './peerProcess.js'
import { makeRpc, readRequests } from './readClient.js'

const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const seconds = Number(option('--seconds') ?? 3)
const rounds = Number(option('--rounds') ?? 1)
const only = option('--only')?.split(',')

/** CPU time (user and system, ms) the process `pid` has used so far, from /proc (Linux). */
function cpuMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 }
}

const startServer = () => startSourceDevnet({ src: option('--src'), prof: option('--prof') })

/** The harness' loadLoop: `concurrency` workers for `seconds`; req/s, p50, and the server's CPU µs per request. */
async function loop(pid: number, concurrency: number, fn: () => Promise<unknown>) {
  const lat: number[] = []
  const deadline = performance.now() + seconds * 1000
  const cpu0 = cpuMs(pid)
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const s = performance.now()
        await fn()
        lat.push(performance.now() - s)
      }
    }),
  )
  const elapsed = (performance.now() - t0) / 1000
  const cpu1 = cpuMs(pid)
  const us = (ms: number) => (ms * 1000) / lat.length
  lat.sort((a, b) => a - b)
  return {
    rps: Math.round(lat.length / elapsed),
    p50: lat[lat.length >> 1]!,
    userUs: us(cpu1.user - cpu0.user),
    systemUs: us(cpu1.system - cpu0.system),
  }
}

async function main() {
  const { url, pid, stop } = await startServer()
  const rpc = makeRpc(url)
  try {
    const { balance, call, distinct } = await readRequests(rpc)
    // The harness' warm-up: 8 in flight.
    if (!only || only.some((n) => n.startsWith('bal'))) await loop(pid, 8, balance)
    if (!only || only.some((n) => n.startsWith('call'))) await loop(pid, 8, call)
    if (only?.includes('calld32')) await loop(pid, 8, distinct)
    const rows: [string, number, () => Promise<unknown>][] = [
      ['bal1', 1, balance],
      ['bal32', 32, balance],
      ['call32', 32, call],
      ['call1', 1, call],
      ['calld32', 32, distinct],
    ]
    for (let r = 0; r < rounds; r++)
      for (const [name, n, fn] of rows) {
        if (only && !only.includes(name)) continue
        const m = await loop(pid, n, fn)
        console.log(`${name.padEnd(7)} ${String(m.rps).padStart(6)} req/s  p50 ${m.p50.toFixed(3)} ms  server cpu ${(m.userUs + m.systemUs).toFixed(1)} µs/req (user ${m.userUs.toFixed(1)}, system ${m.systemUs.toFixed(1)})`)
      }
  } finally {
    rpc.close()
    await stop()
  }
}

await main()

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
import http from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Hex, encodeDeployData, encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { startSourceDevnet } from './peerProcess.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const artifactPath = join(root, '..', 'shared', 'bench', 'contracts', 'build', 'BenchToken.json')
const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const seconds = Number(option('--seconds') ?? 3)
const rounds = Number(option('--rounds') ?? 1)
const only = option('--only')?.split(',')

/** The harness' client (peers.mjs makeRpc): node:http over a keep-alive agent, one id per request. */
function makeRpc(url: URL) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  let id = 0
  return (method: string, params: unknown[]): Promise<any> => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })
    return new Promise((resolve, reject) => {
      const r = http.request(
        { hostname: url.hostname, port: url.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const j = JSON.parse(Buffer.concat(chunks).toString())
            if (j.error) reject(new Error(`${method}: ${j.error.message}`))
            else resolve(j.result)
          })
          res.on('error', reject)
        },
      )
      r.on('error', reject)
      r.end(body)
    })
  }
}

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
  const art = JSON.parse(readFileSync(artifactPath, 'utf8')) as { abi: any[]; bytecode: Hex }
  const { url, pid, stop } = await startServer()
  const rpc = makeRpc(url)
  try {
    const chainId = Number(await rpc('eth_chainId', []))
    const a0 = mnemonicToAccount('test test test test test test test test test test test junk')
    let nonce = Number(await rpc('eth_getTransactionCount', [a0.address, 'pending']))
    const send = async (tx: { to?: Hex; data: Hex; gas: bigint }) => {
      const raw = await a0.signTransaction({ type: 'eip1559', chainId, nonce: nonce++, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, ...tx })
      const hash = await rpc('eth_sendRawTransaction', [raw])
      for (;;) {
        const r = await rpc('eth_getTransactionReceipt', [hash])
        if (r?.blockNumber) return r
        await new Promise((r) => setTimeout(r, 5))
      }
    }
    const token = (await send({ data: encodeDeployData({ abi: art.abi, bytecode: art.bytecode, args: ['Bench USD', '2', 'BUSD'] }), gas: 3_000_000n })).contractAddress as Hex
    await send({ to: token, data: encodeFunctionData({ abi: art.abi, functionName: 'mint', args: [a0.address, 10n ** 12n] }), gas: 100_000n })
    const data = encodeFunctionData({ abi: art.abi, functionName: 'balanceOf', args: [a0.address] })
    const balance = () => rpc('eth_getBalance', [a0.address, 'latest'])
    const call = async () => {
      const r = await rpc('eth_call', [{ to: token, data }, 'latest'])
      if (r.length !== 66) throw new Error(`bad eth_call result ${r}`)
    }
    // balanceOf of a different holder each time: what a call costs when the memo cannot answer it.
    let holder = 0
    const distinct = async () => {
      const who = `0x${(++holder).toString(16).padStart(40, '0')}` as Hex
      const r = await rpc('eth_call', [{ to: token, data: encodeFunctionData({ abi: art.abi, functionName: 'balanceOf', args: [who] }) }, 'latest'])
      if (r.length !== 66) throw new Error(`bad eth_call result ${r}`)
    }
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
    await stop()
  }
}

await main()

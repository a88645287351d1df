/**
 * `npx tsx bench/logs.ts`: eth_getLogs over an indexed chain of 100,000 logs
 * in 2,000 blocks. Synthetic blocks are appended straight to the chain (the
 * log index is fed by append, as for sealed blocks); the query path measured
 * is the real one: the eth_getLogs handler with decoding and formatting,
 * in-process, and over HTTP from another process (JSON included). Prints p50 and p95; asserts
 * nothing.
 *   selective: one address and one topic matching ~1% of all logs, whole span
 *   transfers:  every Transfer log (5,000) of a 500-block range
 * The HTTP figures come from a client in another process, as the shared peer harness measures.
 */
import { spawn } from 'node:child_process'
import { createBlock } from '@ethereumjs/block'
import { type Hex, keccak256, toHex } from 'viem'
import type { ExecutedTx } from '../src/evm/types.js'
import { type LogFilter, resolveConfig } from '../src/index.js'
import { createNodeWithParts } from '../src/node/node.js'
import { createDispatcher } from '../src/rpc/dispatch.js'
import { allMethods } from '../src/rpc/registry.js'
import { createHttpApp, listen } from '../src/server/http.js'

const blocks = 2_000
const logsPerBlock = 50
const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))
const approvalTopic = keccak256(toHex('Approval(address,address,uint256)'))
const contracts = Array.from({ length: 10 }, (_, i) => `0x${(0xc0 + i).toString(16).padStart(40, '0')}` as Hex)
const senders = Array.from({ length: 10 }, (_, i) => `0x${(0x5e0 + i).toString(16).padStart(64, '0')}` as Hex)

// The node with its writable parts (the synthetic blocks go straight into its chain), served as startDevnet serves one.
const config = await resolveConfig({ mining: 'manual', clock: 'virtual', quiet: true, port: 0 })
const { node, parts } = await createNodeWithParts(config)
const dispatcher = createDispatcher(node, allMethods, { debug: false })
const server = await listen(createHttpApp(dispatcher, config), config)
const devnet = {
  url: server.url,
  request: (args: { method: string; params: unknown[] }) => dispatcher.call(args.method, args.params) as Promise<unknown[]>,
  close: async () => {
    await node.close()
    await server.close()
  },
}
const { chain, preconf } = parts
await parts.write(async () => {
  let i = 0
  let parent = chain.head()
  for (let n = 1; n <= blocks; n++) {
    const block = createBlock(
      { header: { number: BigInt(n), parentHash: parent.block.hash(), timestamp: parent.block.header.timestamp + 2n, gasLimit: 30_000_000n } },
      { common: node.common, setHardfork: false, skipConsensusFormatValidation: true } as never,
    )
    const txs: ExecutedTx[] = []
    // Ten logs per transaction, five transactions per block.
    for (let t = 0; t < logsPerBlock / 10; t++) {
      const logs = []
      for (let l = 0; l < 10; l++, i++) {
        logs.push({
          address: contracts[i % 10]!,
          topics: [Math.floor(i / 10) % 5 === 0 ? transferTopic : approvalTopic, senders[Math.floor(i / 100) % 10]!, toHex(i, { size: 32 })],
          data: toHex(BigInt(i) * 1_000_000n, { size: 32 }),
        })
      }
      // What the chain's compaction reads of a sealed transaction (src/node/compactStored.ts) besides the logs.
      txs.push({ hash: keccak256(toHex(`tx-${n}-${t}`)), from: contracts[0]!, logs, logsBloom: new Uint8Array(256), tx: {} } as unknown as ExecutedTx)
    }
    parent = chain.append({ block, txs })
  }
  await preconf.start(chain.head(), chain.head().block.header.timestamp + 2n, { reuseState: true })
})

const q = (n: number) => `0x${n.toString(16)}` as const
const queries: Record<string, LogFilter> = {
  selective: { fromBlock: q(1), toBlock: q(blocks), address: contracts[3], topics: [null, senders[7]!] },
  transfers: { fromBlock: q(1001), toBlock: q(1500), topics: [transferTopic] },
}

async function measure(name: string, run: () => Promise<unknown[]>) {
  const times: number[] = []
  let count = 0
  for (let k = 0; k < 60; k++) {
    const start = performance.now()
    count = (await run()).length
    if (k >= 10) times.push(performance.now() - start) // the first ten warm the JIT
  }
  times.sort((a, b) => a - b)
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2)
  console.log(`${name.padEnd(28)} ${String(count).padStart(6)} logs   p50 ${at(0.5)} ms   p95 ${at(0.95)} ms`)
}

/**
 * HTTP from a separate process (as peers are measured: keep-alive, JSON parsed by the client), so the
 * client's parsing does not run on the node's thread.
 */
function httpFromOtherProcess(params: unknown): Promise<string> {
  const client = `
    import http from 'node:http'
    const agent = new http.Agent({ keepAlive: true })
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [${JSON.stringify(params)}] })
    const once = () => new Promise((resolve, reject) => {
      const req = http.request(${JSON.stringify(devnet.url)}, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (data += c))
        res.on('end', () => resolve(JSON.parse(data).result.length))
      })
      req.on('error', reject)
      req.end(body)
    })
    const times = []
    let n = 0
    for (let k = 0; k < 60; k++) {
      const start = performance.now()
      n = await once()
      if (k >= 10) times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    console.log(n + ' ' + times[Math.floor(times.length / 2)].toFixed(2) + ' ' + times[Math.floor(times.length * 0.95)].toFixed(2))
    agent.destroy()
  `
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', client], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`client exited ${code}`))))
  })
}

console.log(`${blocks} blocks, ${blocks * logsPerBlock} logs`)
for (const [name, params] of Object.entries(queries)) {
  await measure(`${name} (handler)`, () => devnet.request({ method: 'eth_getLogs', params: [params] }))
  const [count, p50, p95] = (await httpFromOtherProcess(params)).split(' ')
  console.log(`${`${name} (HTTP, other process)`.padEnd(28)} ${count!.padStart(6)} logs   p50 ${p50} ms   p95 ${p95} ms`)
}
await devnet.close()

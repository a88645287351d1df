/**
 * The shared harness' read requests (peers.mjs steps b and c) as the harness
 * sends them: node:http over a keep-alive agent, `JSON.stringify({ jsonrpc,
 * id, method, params })` with a fresh id per request, the reply JSON-parsed.
 * With the harness' BenchToken deployed, for bench/readpath.ts and
 * bench/serverCpu.ts.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { type Hex, encodeDeployData, encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { root } from './peerProcess.js'

const artifactPath = join(root, '..', 'shared', 'bench', 'contracts', 'build', 'BenchToken.json')

/** The harness' client (peers.mjs makeRpc): node:http over a keep-alive agent, one id per request. */
export function makeRpc(url: URL) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  let id = 0
  const rpc = (method: string, params: unknown[]): Promise<any> => {
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
  return Object.assign(rpc, { close: () => agent.destroy() })
}

export type Rpc = ReturnType<typeof makeRpc>

/**
 * Deploys the harness' BenchToken from account 0 and mints it a balance, as
 * the harness does before step c; returns the read requests of steps b and c
 * and `distinct`, a balanceOf of a new holder per call (no memo answers it).
 */
export async function readRequests(rpc: Rpc) {
  const art = JSON.parse(readFileSync(artifactPath, 'utf8')) as { abi: any[]; bytecode: Hex }
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
  let holder = 0
  return {
    balance: () => rpc('eth_getBalance', [a0.address, 'latest']),
    call: async () => {
      const r = await rpc('eth_call', [{ to: token, data }, 'latest'])
      if (r.length !== 66) throw new Error(`bad eth_call result ${r}`)
    },
    distinct: async () => {
      const who = `0x${(++holder).toString(16).padStart(40, '0')}` as Hex
      const r = await rpc('eth_call', [{ to: token, data: encodeFunctionData({ abi: art.abi, functionName: 'balanceOf', args: [who] }) }, 'latest'])
      if (r.length !== 66) throw new Error(`bad eth_call result ${r}`)
    },
  }
}

/**
 * The shared harness' transaction steps (d, e) against one devnet, for A/B
 * runs and CPU profiles of the write path without the whole harness:
 * 500 ETH transfers, 500 ERC-20 transfers and 200 EIP-3009
 * receiveWithAuthorization on the harness' BenchToken, 10 senders, each
 * sending its pre-signed txs one after another over keep-alive HTTP, senders
 * in parallel, timed until every sender's last tx has a receipt.
 *
 *   npx tsx bench/txpath.ts                  # spawns `devnet start --mining auto` from src/
 *   npx tsx bench/txpath.ts --prof DIR       # the same, the server under node --cpu-prof (profile in DIR)
 *   npx tsx bench/txpath.ts --url URL        # a node already running (--pid PID: report its CPU time per tx)
 *   options: --rounds N (default 3; the median and the best are printed), --only eth,erc20,eip3009,
 *   --src DIR (run the server from another checkout's src/, for A/B runs)
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Hex,
  encodeDeployData,
  encodeFunctionData,
  keccak256,
  parseSignature,
  stringToHex,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { post, startSourceDevnet } from './peerProcess.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const artifactPath = join(root, '..', 'shared', 'bench', 'contracts', 'build', 'BenchToken.json')
const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
let nextId = 1

async function call(url: URL, method: string, params: unknown[]): Promise<any> {
  const parsed = JSON.parse(await post(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })))
  if (parsed.error) throw new Error(`${method}: ${parsed.error.message}`)
  return parsed.result
}

const GWEI = 1_000_000_000n
const addrFromLabel = (label: string) => `0x${keccak256(stringToHex(label)).slice(26)}` as Hex
const mnemonic = 'test test test test test test test test test test test junk'
const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }))
const authorizer = privateKeyToAccount(keccak256(stringToHex('devnet-bench-authorizer')))

/** CPU time (user + system, ms) the process `pid` has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

async function startServer(): Promise<{ url: URL; pid: number | undefined; stop: () => Promise<void> }> {
  const given = option('--url')
  if (given) return { url: new URL(given), pid: option('--pid') ? Number(option('--pid')) : undefined, stop: async () => {} }
  return startSourceDevnet({ src: option('--src'), prof: option('--prof') })
}

async function main() {
  const rounds = Number(option('--rounds') ?? 3)
  if (!existsSync(artifactPath)) throw new Error(`missing ${artifactPath}`)
  const art = JSON.parse(readFileSync(artifactPath, 'utf8')) as { abi: any[]; bytecode: Hex }
  const { url, pid, stop } = await startServer()
  const chainId = Number(await call(url, 'eth_chainId', []))
  const nonces = new Map<string, number>()
  const sync = async () => {
    for (const a of accounts) nonces.set(a.address, Number(await call(url, 'eth_getTransactionCount', [a.address, 'pending'])))
  }
  const sign = async (acct: (typeof accounts)[number], tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }) => {
    const nonce = nonces.get(acct.address)!
    nonces.set(acct.address, nonce + 1)
    return acct.signTransaction({ type: 'eip1559', chainId, nonce, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI, ...tx })
  }
  const receipt = async (hash: Hex) => {
    for (;;) {
      const r = await call(url, 'eth_getTransactionReceipt', [hash])
      if (r?.blockNumber) return r
      await new Promise((r) => setTimeout(r, 5))
    }
  }

  // The harness' token: deployed and minted to every sender and the authorizer.
  await sync()
  const a0 = accounts[0]!
  const deploy = await sign(a0, { data: encodeDeployData({ abi: art.abi, bytecode: art.bytecode, args: ['Bench USD', '2', 'BUSD'] }), gas: 3_000_000n })
  const token = (await receipt(await call(url, 'eth_sendRawTransaction', [deploy]))).contractAddress as Hex
  for (const to of [...accounts.map((a) => a.address), authorizer.address]) {
    const raw = await sign(a0, { to: token, data: encodeFunctionData({ abi: art.abi, functionName: 'mint', args: [to, 10n ** 12n] }), gas: 100_000n })
    await receipt(await call(url, 'eth_sendRawTransaction', [raw]))
  }

  const measure = async (lanes: Hex[][]) => {
    const n = lanes.reduce((a, l) => a + l.length, 0)
    const before = Number(await call(url, 'eth_blockNumber', []))
    const cpu0 = cpuMs(pid)
    const t0 = performance.now()
    const tails = await Promise.all(
      lanes.map(async (txs) => {
        let last: Hex = '0x'
        for (const raw of txs) last = await call(url, 'eth_sendRawTransaction', [raw])
        return last
      }),
    )
    await Promise.all(tails.map(receipt))
    const seconds = (performance.now() - t0) / 1000
    const cpu = cpu0 === undefined ? undefined : cpuMs(pid)! - cpu0
    const blocks = Number(await call(url, 'eth_blockNumber', [])) - before
    return { tps: Math.round(n / seconds), blocks, cpuPerTx: cpu === undefined ? undefined : cpu / n }
  }

  const workloads: Record<string, (round: number) => Promise<Hex[][]>> = {
    eth: async (round) =>
      Promise.all(accounts.map((acct, l) =>
        Promise.all(Array.from({ length: 50 }, (_, j) => sign(acct, { to: addrFromLabel(`eth-${round}-${l}-${j}`), value: GWEI, gas: 21_000n }))))),
    erc20: async (round) =>
      Promise.all(accounts.map((acct, l) =>
        Promise.all(Array.from({ length: 50 }, (_, j) =>
          sign(acct, { to: token, data: encodeFunctionData({ abi: art.abi, functionName: 'transfer', args: [addrFromLabel(`tok-${round}-${l}-${j}`), 1_000_000n] }), gas: 100_000n }))))),
    eip3009: async (round) => {
      const domain = { name: 'Bench USD', version: '2', chainId, verifyingContract: token }
      const types = {
        ReceiveWithAuthorization: [
          { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
        ],
      } as const
      const lanes: Hex[][] = []
      for (const [l, acct] of accounts.entries()) {
        const txs: Hex[] = []
        for (let j = 0; j < 20; j++) {
          const message = { from: authorizer.address, to: acct.address, value: 1_000n, validAfter: 0n, validBefore: 2n ** 40n, nonce: keccak256(stringToHex(`auth-${round}-${l}-${j}-${Date.now()}`)) }
          const sig = parseSignature(await authorizer.signTypedData({ domain, types, primaryType: 'ReceiveWithAuthorization', message }))
          const v = sig.v !== undefined ? Number(sig.v) : 27 + sig.yParity
          txs.push(await sign(acct, {
            to: token, gas: 200_000n,
            data: encodeFunctionData({ abi: art.abi, functionName: 'receiveWithAuthorization', args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, v, sig.r, sig.s] }),
          }))
        }
        lanes.push(txs)
      }
      return lanes
    },
  }
  const only = option('--only')?.split(',')
  for (const [name, build] of Object.entries(workloads)) {
    if (only && !only.includes(name)) continue
    const results: { tps: number; blocks: number; cpuPerTx: number | undefined }[] = []
    for (let round = 0; round < rounds; round++) {
      await sync()
      results.push(await measure(await build(round)))
    }
    const sorted = [...results].sort((a, b) => a.tps - b.tps)
    console.log(`${name.padEnd(8)} median ${sorted[Math.floor((sorted.length - 1) / 2)]!.tps} tx/s, best ${sorted.at(-1)!.tps} (rounds: ${results.map((r) => `${r.tps}/${r.blocks} blocks${r.cpuPerTx === undefined ? '' : `/${r.cpuPerTx.toFixed(2)} ms server cpu per tx`}`).join(', ')})`)
  }
  await stop()
  process.exit(0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

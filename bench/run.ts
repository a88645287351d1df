/**
 * `npm run bench`: prints devnet's figures for the workload of
 * ../shared/bench/README.md (reads at 1 and 32 in flight, token balanceOf
 * calls, signed ETH transfers end to end in auto mode, cold start, RSS).
 * It asserts nothing. For peers measured in the same run, use the shared
 * harness: `bash ../shared/bench/setup.sh && node ../shared/bench/peers.mjs
 * --spawn "node bin/devnet.js start --port {port} --mining auto" --name devnet --cwd .`
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { encodeFunctionData, parseAbi, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startDevnet } from '../src/index.js'

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

function post(url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (data += c))
        res.on('end', () => resolve(data))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function load(url: string, body: string, inFlight: number, seconds: number) {
  const u = new URL(url)
  const latencies: number[] = []
  const end = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now()
      await post(u, body)
      latencies.push(performance.now() - t)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: inFlight }, worker))
  const elapsed = (performance.now() - start) / 1000
  latencies.sort((a, b) => a - b)
  return { rps: Math.round(latencies.length / elapsed), p50: latencies[Math.floor(latencies.length / 2)]!.toFixed(2) }
}

const rpc = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

async function main() {
  const quick = process.argv.includes('--quick')
  const seconds = quick ? 1 : 5
  const figures: Record<string, unknown> = {}

  // Cold start: spawn the CLI, time to the first eth_chainId answer.
  if (existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
    const t = performance.now()
    const child = spawn(process.execPath, [new URL('../bin/devnet.js', import.meta.url).pathname, 'start', '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const url = await new Promise<string>((resolve) => {
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        const m = /Listening on (\S+)/.exec(out)
        if (m) resolve(m[1]!)
      })
    })
    await post(new URL(url), rpc('eth_chainId', []))
    figures.coldStartMs = Math.round(performance.now() - t)
    child.kill('SIGTERM')
  }

  const devnet = await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
  const a0 = devnet.accounts[0]!.address
  await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 4, 0.5)
  figures.getBalanceLatest1 = await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 1, seconds)
  figures.getBalanceLatest32 = await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 32, seconds)
  figures.getBalancePending32 = await load(devnet.url, rpc('eth_getBalance', [a0, 'pending']), 32, seconds)
  const data = encodeFunctionData({ abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [a0] })
  figures.balanceOfCall32 = await load(devnet.url, rpc('eth_call', [{ to: devnet.token.address, data }, 'latest']), 32, seconds)

  // Signed ETH transfers end to end: 10 senders x 50, senders in parallel.
  const senders = devnet.accounts.map((a) => privateKeyToAccount(a.privateKey))
  const perSender = quick ? 10 : 50
  const rounds: number[] = []
  for (let round = 0; round < 3; round++) {
    const signed = await Promise.all(
      senders.map(async (s, i) => {
        const base = BigInt((await devnet.request({ method: 'eth_getTransactionCount', params: [s.address, 'pending'] })) as string)
        return Promise.all(
          Array.from({ length: perSender }, (_, n) =>
            s.signTransaction({ chainId: 31337, nonce: Number(base) + n, to: senders[(i + 1) % senders.length]!.address, value: 1n, gas: 21000n, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1') }),
          ),
        )
      }),
    )
    const u = new URL(devnet.url)
    const t = performance.now()
    await Promise.all(
      signed.map(async (txs) => {
        let last = ''
        for (const raw of txs) last = JSON.parse(await post(u, rpc('eth_sendRawTransaction', [raw]))).result
        while (!JSON.parse(await post(u, rpc('eth_getTransactionReceipt', [last]))).result) await new Promise((r) => setTimeout(r, 1))
      }),
    )
    rounds.push(Math.round((senders.length * perSender) / ((performance.now() - t) / 1000)))
  }
  figures.ethTransfersPerSecondAuto = rounds
  figures.blocks = Number(devnet.node.chain.height())
  figures.rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20)
  await devnet.close()
  console.log(JSON.stringify(figures, null, 2))
}

main().then(() => process.exit(0))

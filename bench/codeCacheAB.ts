/**
 * What a CLI bundle's V8 code cache saves a fresh process on its first
 * requests of each kind: for each bundle directory given (a `scripts/bundle.mjs
 * --outdir DIR` build, e.g. one with `--cache-start-only` and one without),
 * alternating, spawns the CLI from it (`start --mining auto --quiet`, run
 * through bin/codeCache.js as bin/devnet.js runs it) and reads the main
 * thread's CPU time (/proc/<pid>/task/<pid>/schedstat, Linux only) around
 * each phase: to the first eth_chainId, to the node ready (eth_getBalance),
 * then N requests of each kind in order (pre-signed ETH transfers, token
 * transfers, receiveWithAuthorization, eth_call, eth_getBalance, receipts,
 * eth_estimateGas, eth_getLogs, eth_simulateV1 1×1 and traceTransfers). Prints
 * the median per phase (ms per phase, and per request). Asserts nothing.
 *
 *   npx tsx bench/codeCacheAB.ts [--runs 9] [--n 30] DIR ...
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type Hex, encodeFunctionData, keccak256, pad, parseAbi, parseSignature, stringToHex, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { freePort, post, root } from './peerProcess.js'
import { mainThreadCpuMs } from './threadCpu.js'

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback
}
const runs = option('--runs', 9)
const n = option('--n', 30)
const dirs = args.map((dir) => resolve(dir))
if (dirs.length === 0) throw new Error('usage: npx tsx bench/codeCacheAB.ts [--runs 9] [--n 30] BUNDLE_DIR ...')

const launcher = join(tmpdir(), `devnet-code-cache-ab-${process.pid}.cjs`)
writeFileSync(launcher, `require(${JSON.stringify(join(root, 'bin', 'codeCache.js'))}).runCliBundles(process.argv[2], process.argv.slice(3))\n`)

const token = '0x3009300930093009300930093009300930093009' as const
const abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])
const label = (text: string) => `0x${keccak256(stringToHex(text)).slice(26)}` as Hex
const mnemonic = 'test test test test test test test test test test test junk'
const [alice, bob, carol] = [0, 1, 2].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
const fees = { maxFeePerGas: 10n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n }
const chainId = 31337

// Pre-signed once: every run starts from the same fresh chain.
const ethTxs: Hex[] = []
const tokenTxs: Hex[] = []
const authTxs: Hex[] = []
for (let i = 0; i < n; i++) {
  ethTxs.push(await alice!.signTransaction({ type: 'eip1559', chainId, nonce: i, to: label(`eth-${i}`), value: 10n ** 9n, gas: 21_000n, ...fees }))
  tokenTxs.push(await bob!.signTransaction({ type: 'eip1559', chainId, nonce: i, to: token, data: encodeFunctionData({ abi, functionName: 'transfer', args: [label(`tok-${i}`), 1_000n] }), gas: 100_000n, ...fees }))
}
// The authorizer is carol (a dev account, so it holds tokens at genesis); bob submits.
const domain = { name: 'USD Coin', version: '2', chainId, verifyingContract: token } as const
const types = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
  ],
} as const
for (let i = 0; i < n; i++) {
  const message = { from: carol!.address, to: bob!.address, value: 1_000n, validAfter: 0n, validBefore: 2n ** 40n, nonce: keccak256(stringToHex(`auth-${i}`)) }
  const { r, s, v, yParity } = parseSignature(await carol!.signTypedData({ domain, types, primaryType: 'ReceiveWithAuthorization', message }))
  const data = encodeFunctionData({ abi, functionName: 'receiveWithAuthorization', args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v ?? 27n + BigInt(yParity)), r, s] })
  authTxs.push(await bob!.signTransaction({ type: 'eip1559', chainId, nonce: n + i, to: token, data, gas: 200_000n, ...fees }))
}

let id = 0
async function call(url: URL, method: string, params: unknown[] = []): Promise<any> {
  const body = JSON.parse(await post(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })))
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

const sender = alice!.address
const transfer = (to: Hex) => ({ from: sender, to: token, data: encodeFunctionData({ abi, functionName: 'transfer', args: [to, 1_000n] }) })
const gas = { maxFeePerGas: toHex(fees.maxFeePerGas), maxPriorityFeePerGas: toHex(fees.maxPriorityFeePerGas), gas: toHex(200_000) }
const stateOverrides = { [sender]: { balance: toHex(10n ** 21n) } }
const TRANSFER_TOPIC = keccak256(stringToHex('Transfer(address,address,uint256)'))

/** The phases after the node is ready, in order: name → one request (i: 0..n-1). */
const phases: [string, (url: URL, i: number) => Promise<unknown>][] = [
  ['eth transfer', (url, i) => call(url, 'eth_sendRawTransaction', [ethTxs[i]])],
  ['token transfer', (url, i) => call(url, 'eth_sendRawTransaction', [tokenTxs[i]])],
  ['receiveWithAuthorization', (url, i) => call(url, 'eth_sendRawTransaction', [authTxs[i]])],
  ['eth_getTransactionReceipt', (url, i) => call(url, 'eth_getTransactionReceipt', [keccak256(tokenTxs[i]!)])],
  ['eth_call balanceOf', (url, i) => call(url, 'eth_call', [{ to: token, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [label(`tok-${i}`)] }) }, 'latest'])],
  ['eth_getBalance', (url, i) => call(url, 'eth_getBalance', [label(`eth-${i}`), 'latest'])],
  ['eth_estimateGas', (url, i) => call(url, 'eth_estimateGas', [{ from: sender, to: token, data: transfer(label(`est-${i}`)).data }])],
  ['eth_getLogs', (url, i) => call(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest', address: token, topics: [TRANSFER_TOPIC, null, pad(label(`tok-${i}`))] }])],
  ['eth_simulateV1 1x1', (url, i) => call(url, 'eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [transfer(label(`sim-${i}`))] }] }, 'latest'])],
  ['eth_simulateV1 trace+validation', (url, i) => call(url, 'eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [{ from: sender, to: bob!.address, value: toHex(12_345n), ...gas }, { ...transfer(label(`simt-${i}`)), ...gas }] }], traceTransfers: true, validation: true }, 'latest'])],
]

const names = ['first eth_chainId', 'ready (eth_getBalance)', ...phases.map(([name]) => name), 'total']
const results = new Map(dirs.map((dir) => [dir, new Map(names.map((name) => [name, [] as number[]]))]))

for (let run = 0; run < runs; run++) {
  for (const dir of dirs) {
    const port = await freePort()
    const url = new URL(`http://127.0.0.1:${port}/`)
    const child = spawn(process.execPath, [launcher, dir, 'start', '--port', String(port), '--mining', 'auto', '--quiet', '--no-ui'], { stdio: ['ignore', 'ignore', 'inherit'] })
    const pid = child.pid!
    const r = results.get(dir)!
    for (;;) {
      try {
        await call(url, 'eth_chainId')
        break
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
    }
    let before = mainThreadCpuMs(pid)
    r.get('first eth_chainId')!.push(before)
    await call(url, 'eth_getBalance', [sender, 'latest'])
    let now = mainThreadCpuMs(pid)
    r.get('ready (eth_getBalance)')!.push(now - before)
    for (const [name, request] of phases) {
      if (process.env.AB_VERBOSE) console.error(name)
      before = mainThreadCpuMs(pid)
      for (let i = 0; i < n; i++) await request(url, i)
      now = mainThreadCpuMs(pid)
      r.get(name)!.push(now - before)
    }
    r.get('total')!.push(now)
    const receipt = await call(url, 'eth_getTransactionReceipt', [keccak256(authTxs[n - 1]!)])
    if (receipt?.status !== '0x1') throw new Error(`${dir}: the last receiveWithAuthorization did not succeed`)
    child.kill('SIGKILL')
    await new Promise((resolve) => child.on('exit', resolve))
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
console.log(`main-thread CPU, median of ${runs} fresh processes per bundle, ${n} requests per phase (ms per phase; per request)`)
console.log(['phase'.padEnd(34), ...dirs.map((dir) => dir.split('/').slice(-1)[0]!.padStart(20))].join(''))
for (const name of names) {
  const per = (ms: number) => (phases.some(([phase]) => phase === name) ? `${ms.toFixed(1)}; ${(ms / n).toFixed(2)}` : ms.toFixed(1))
  console.log([name.padEnd(34), ...dirs.map((dir) => per(median(results.get(dir)!.get(name)!)).padStart(20))].join(''))
}

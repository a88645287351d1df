/**
 * Resident memory after a fixed in-process workload: N blocks, each with a few
 * ETH transfers and token transfers, then a full GC. Needs --expose-gc:
 *
 *   node --expose-gc --import tsx bench/memory.ts [--blocks 2000]
 *
 * Prints heapUsed, external, arrayBuffers and RSS in MiB (after the GC when
 * run with --expose-gc, as they are without it); asserts nothing.
 */
import { encodeFunctionData, erc20Abi, type Hex, parseGwei } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevnet } from '../src/index.js'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const blocks = arg('--blocks', 2000)
const mnemonic = 'test test test test test test test test test test test junk'
const senders = Array.from({ length: 4 }, (_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }))

const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const request = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never) as Promise<any>
const chainId = Number(await request('eth_chainId'))
const nonces = senders.map(() => 0)
let lastHash: Hex | undefined
for (let b = 0; b < blocks; b++) {
  for (let i = 0; i < senders.length; i++) {
    const sender = senders[i]!
    const to = senders[(i + 1 + (b % 3)) % senders.length]!.address
    const token = i % 2 === 1
    const raw = await sender.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: nonces[i]!++,
      to: token ? devnet.token.address : to,
      value: token ? 0n : BigInt(b + 1),
      data: token ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, BigInt(b + 1)] }) : undefined,
      gas: token ? 100_000n : 21_000n,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    lastHash = await request('eth_sendRawTransaction', [raw])
  }
  await devnet.seal()
}
const receipt = await request('eth_getTransactionReceipt', [lastHash])
const head = await request('eth_getBlockByNumber', ['latest', false])
const gc = (globalThis as { gc?: () => void }).gc
// Without --expose-gc: memory as a benchmark sees it, garbage included.
if (gc) {
  for (let i = 0; i < 3; i++) gc()
  await new Promise((r) => setTimeout(r, 100))
  gc()
}
const m = process.memoryUsage()
const mib = (n: number) => (n / 2 ** 20).toFixed(1)
console.log(`blocks ${Number(head.number)} head ${head.hash} stateRoot ${head.stateRoot} last status ${receipt.status} logs ${receipt.logs.length}`)
console.log(`${gc ? "after gc" : "no gc"}: heapUsed ${mib(m.heapUsed)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} rss ${mib(m.rss)} MiB`)
if (process.argv.includes('--snapshot')) (await import('node:v8')).writeHeapSnapshot('/tmp/rss5.heapsnapshot')
await devnet.close?.()
process.exit(0)

/**
 * Does transaction throughput hold as the chain grows? Devnet (`--mining auto`)
 * beside Anvil (automine), same machine, same HTTP client: a round of 500
 * signed ETH transfers (10 senders × 50, each sender's in nonce order, senders
 * in parallel, timed from the first send to every sender's last receipt, as the
 * shared harness does), then `anvil_mine` of N empty blocks, again and again.
 * A first, uncounted round warms the JIT.
 *
 *   npx tsx bench/growth.ts [--steps 3] [--blocks 10000] [--no-anvil]
 *
 * Prints tx/s per chain height for each node; asserts nothing.
 */
import { existsSync } from 'node:fs'
import { type Hex, parseGwei } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { anvilBin, anvilCommand, devnetCommand, rpc, timed, withNode } from './peerProcess.js'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const steps = arg('--steps', 3)
const blocksPerStep = arg('--blocks', 10_000)
const lanes = 10
const perLane = 50
const mnemonic = 'test test test test test test test test test test test junk'
const senders = Array.from({ length: lanes }, (_, i) => mnemonicToAccount(mnemonic, { addressIndex: i }))

async function signRound(url: string): Promise<Hex[][]> {
  const chainId = Number(await rpc<Hex>(url, 'eth_chainId'))
  return Promise.all(
    senders.map(async (sender, lane) => {
      const first = Number(await rpc<Hex>(url, 'eth_getTransactionCount', [sender.address, 'pending']))
      const to = senders[(lane + 1) % lanes]!.address
      return Promise.all(
        Array.from({ length: perLane }, (_, k) =>
          sender.signTransaction({
            chainId,
            type: 'eip1559',
            nonce: first + k,
            to,
            value: 1n,
            gas: 21_000n,
            maxFeePerGas: parseGwei('100'),
            maxPriorityFeePerGas: parseGwei('1'),
          }),
        ),
      )
    }),
  )
}

async function receipt(url: string, hash: Hex) {
  for (;;) {
    const r = await rpc<{ status: Hex } | null>(url, 'eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** One round: tx/s from the first send to the receipt of every lane's last transaction. */
async function round(url: string) {
  const signed = await signRound(url)
  const ms = await timed(() =>
    Promise.all(
      signed.map(async (raws) => {
        let last: Hex | undefined
        for (const raw of raws) last = await rpc<Hex>(url, 'eth_sendRawTransaction', [raw])
        await receipt(url, last!)
      }),
    ),
  )
  return (lanes * perLane * 1000) / ms
}

async function measure(name: string, url: string) {
  // One round first that is not counted: the JIT warms up on it (devnet's first round runs at a third of its speed).
  await round(url)
  const figures: { height: number; txPerSecond: number; mineSeconds: number }[] = []
  for (let step = 0; step <= steps; step++) {
    const height = Number(await rpc<Hex>(url, 'eth_blockNumber'))
    const txPerSecond = await round(url)
    // Empty blocks in requests of 1,000, so that no single request outlives the HTTP client's timeout.
    let mineSeconds = 0
    if (step < steps)
      for (let done = 0; done < blocksPerStep; done += 1000)
        mineSeconds += (await timed(() => rpc(url, 'anvil_mine', [`0x${Math.min(1000, blocksPerStep - done).toString(16)}`]))) / 1000
    figures.push({ height, txPerSecond, mineSeconds })
    console.error(`${name}: height ${height}: ${txPerSecond.toFixed(0)} tx/s; then ${blocksPerStep} empty blocks in ${mineSeconds.toFixed(1)} s`)
  }
  return figures
}

const results: [string, Awaited<ReturnType<typeof measure>>][] = []
results.push(['devnet', await withNode(devnetCommand('--mining', 'auto'), (url) => measure('devnet', url))])
if (!process.argv.includes('--no-anvil') && existsSync(anvilBin))
  results.push(['anvil', await withNode(anvilCommand(), (url) => measure('anvil', url))])
else console.error(`bench: no Anvil at ${anvilBin} (bash ../shared/bench/setup.sh); devnet only`)

console.log(`| step | ${results.map(([n]) => `${n}: height | tx/s | then ${blocksPerStep} empty blocks, s`).join(' | ')} |`)
console.log(`|---|${results.map(() => '---:|---:|---:').join('|')}|`)
for (let step = 0; step <= steps; step++)
  console.log(
    `| ${step} | ${results.map(([, f]) => `${f[step]!.height} | ${f[step]!.txPerSecond.toFixed(0)} | ${step < steps ? f[step]!.mineSeconds.toFixed(1) : ''}`).join(' | ')} |`,
  )
process.exit(0)

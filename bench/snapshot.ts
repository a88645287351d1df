/**
 * `npx tsx bench/snapshot.ts`: evm_snapshot and evm_revert latency (p50,
 * p90) on a chain of 10 blocks and on one of 10,000 (a transfer in every
 * tenth block), to show that neither grows with the chain or the state.
 * Each sample: snapshot, seal one block with a transfer, revert. It asserts
 * nothing; it prints the figures.
 */
import { privateKeyToAccount } from 'viem/accounts'
import { createDevnet } from '../src/index.js'

const samples = Number(process.env.SAMPLES ?? 200)

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function measure(blocks: number) {
  const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const rpc = (method: string, ...params: unknown[]) => devnet.request<{ Parameters: unknown; ReturnType: any }>({ method, params })
  const signers = devnet.accounts.slice(0, 4).map((a) => privateKeyToAccount(a.privateKey))
  const nonces = signers.map(() => 0)
  const send = async (i: number) => {
    const signer = signers[i % signers.length]!
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: signers[(i + 1) % signers.length]!.address, value: 1n,
      nonce: nonces[i % signers.length]!++, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
    })
    await rpc('eth_sendRawTransaction', raw)
  }
  const started = performance.now()
  for (let n = 1; n <= blocks; n++) {
    if (n % 10 === 0) for (let k = 0; k < 3; k++) await send(n + k)
    await devnet.seal()
  }
  const buildMs = performance.now() - started

  const snapshot: number[] = []
  const revert: number[] = []
  for (let i = 0; i < samples; i++) {
    let t = performance.now()
    const id = await rpc('evm_snapshot')
    snapshot.push(performance.now() - t)
    await send(i)
    await devnet.seal()
    t = performance.now()
    if ((await rpc('evm_revert', id)) !== true) throw new Error('revert failed')
    revert.push(performance.now() - t)
    nonces[i % signers.length]!--
  }
  await devnet.close()
  return { blocks, buildMs, snapshot, revert }
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`
console.log(`evm_snapshot / evm_revert, ${samples} samples each (snapshot, seal 1 block with a transfer, revert)`)
for (const blocks of [10, 10_000]) {
  const r = await measure(blocks)
  console.log(
    `${String(blocks).padStart(6)} blocks (built in ${(r.buildMs / 1000).toFixed(1)} s): ` +
      `snapshot p50 ${fmt(percentile(r.snapshot, 50))} p90 ${fmt(percentile(r.snapshot, 90))}; ` +
      `revert p50 ${fmt(percentile(r.revert, 50))} p90 ${fmt(percentile(r.revert, 90))}`,
  )
}

/**
 * What the fork benches (fork.ts, forkStart.ts, forkRowAB.ts, forkTimeline.ts) fork: a devnet in the bench
 * process with 20 token transfers, then 512 empty blocks, pinned at its head; and the token transfer they and the
 * transfer benches (seqTransfers.ts, forkTxCpu.ts, sealPhases.ts) send: signed by the first dev account to the
 * address numbered `to` (a new recipient each: one cold balance slot on a fork).
 */
import { encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { paymentTokenAbi } from '../src/artifacts/paymentToken.js'
import { startDevnet } from '../src/index.js'

export const forkSender = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 0 })

/** A signed transfer of `amount` of `token` to the address whose number is `to`. */
export const signTransfer = (token: `0x${string}`, nonce: number, to: number, { chainId = 31337, amount = 1n } = {}) =>
  forkSender.signTransaction({
    chainId, type: 'eip1559', nonce, to: token, gas: 100_000n, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1n,
    data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [`0x${to.toString(16).padStart(40, '0')}`, amount] }),
  })

/** The upstream: a non-trivial chain (token transfers, then a few hundred empty blocks), and the block to fork at. */
export async function startForkUpstream() {
  const remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const token = remote.token.address
  for (let i = 0; i < 20; i++) {
    await remote.request({ method: 'eth_sendRawTransaction', params: [await signTransfer(token, i, 1000 + i, { amount: 1_000n })] })
    await remote.seal()
  }
  await remote.request({ method: 'anvil_mine', params: ['0x200'] })
  return { remote, token, pin: remote.node.chain.height() }
}

import type { Hex } from 'viem'
import type { StartedDevnet } from '../../src/index.js'
import { type LooseRpc, account } from '../utils.js'

/**
 * Signs a transaction from dev account `from` at its pending nonce with the
 * chain id the devnet runs under (a fork's is the upstream's) and sends it raw,
 * as a wallet on the fork would; resolves with its hash.
 */
export async function send(devnet: StartedDevnet, from: number, tx: { to?: Hex; data?: Hex; value?: bigint }): Promise<Hex> {
  const nonce = await devnet.request<LooseRpc>({ method: 'eth_getTransactionCount', params: [account(from).address, 'pending'] })
  const signed = await account(from).signTransaction({
    chainId: Number(devnet.node.chainId),
    type: 'eip1559',
    nonce: Number(nonce),
    gas: 300_000n,
    maxFeePerGas: 50_000_000_000n,
    maxPriorityFeePerGas: 1n,
    ...tx,
  })
  return devnet.request<LooseRpc>({ method: 'eth_sendRawTransaction', params: [signed] })
}

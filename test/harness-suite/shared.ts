import { type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { expect, test } from 'vitest'
import { workerDevnet } from 'devnet/vitest'
import type { LooseRpc } from '../utils.js'

/**
 * Tests that would break each other without the revert: each spends from
 * account 0 with nonce 0 and expects the chain it started from. Both suite
 * files run them, in parallel workers.
 */
export function definePayingTests(label: string) {
  const target = '0x0000000000000000000000000000000000001234' as Hex
  for (const amount of [1n, 2n, 3n]) {
    test(`${label}: pays ${amount} ether from a clean chain`, async () => {
      const devnet = await workerDevnet()
      const rpc = (method: string, ...params: unknown[]) => devnet.request<LooseRpc>({ method, params })
      expect(await rpc('eth_blockNumber')).toBe('0x0')
      expect(await rpc('eth_getBalance', target, 'latest')).toBe('0x0')
      const signer = privateKeyToAccount(devnet.accounts[0]!.privateKey)
      const raw = await signer.signTransaction({
        chainId: devnet.chain.id, type: 'eip1559', to: target, value: parseEther(amount.toString()), nonce: 0,
        gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
      })
      await rpc('eth_sendRawTransaction', raw)
      await rpc('evm_increaseTime', 60)
      await devnet.seal()
      expect(BigInt(await rpc('eth_getBalance', target, 'latest'))).toBe(parseEther(amount.toString()))
      // Each worker has its own devnet: the pid tags it, and the port is this worker's.
      expect(devnet.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      console.log(`devnet-worker ${process.pid} ${devnet.port}`)
    })
  }
}

import { bytesToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createDevnet } from '../../src/index.js'
import { account } from '../utils.js'
import type { LooseRpc } from '../utils.js'

describe('sealed blocks are stored compactly', () => {
  it('keeps one object per sealed transaction, with the same block hash and transaction root', async () => {
    const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    const request = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })
    const chainId = Number(await request('eth_chainId'))
    for (let nonce = 0; nonce < 3; nonce++) {
      const raw = await account(0).signTransaction({
        chainId,
        type: 'eip1559',
        nonce,
        to: account(1).address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      })
      await request('eth_sendRawTransaction', [raw])
    }
    await devnet.seal()
    const head = devnet.node.chain.head()
    expect(head.txs).toHaveLength(3)
    head.txs.forEach((executed, i) => expect(head.block.transactions[i]).toBe(executed.tx))
    // The block still describes the same transactions: its hash and roots are recomputed from them.
    expect(bytesToHex(head.block.hash())).toBe(head.hash)
    expect(await head.block.transactionsTrieIsValid()).toBe(true)
    const rpcBlock = await request('eth_getBlockByNumber', ['latest', true])
    expect(rpcBlock.transactions.map((tx: { hash: string }) => tx.hash)).toEqual(head.txs.map((tx) => tx.hash))
    await devnet.close?.()
  })
})

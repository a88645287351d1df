import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'

// How the pre-confirmed layer fills a block: a transaction that does not fit
// the gas left waits for the next block, one the state can no longer pay for
// is dropped with the EVM's reason, and receipts count gas from the block start.
describe('pre-confirmed block building', () => {
  let devnet: Devnet
  afterEach(() => devnet?.close())

  const send = async (from: number, nonce: number, fields: { value?: bigint; gas: bigint }) => {
    const signer = privateKeyToAccount(devnet.accounts[from]!.privateKey)
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: devnet.accounts[9]!.address, nonce,
      maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, value: fields.value ?? 1n, gas: fields.gas,
    })
    return devnet.request({ method: 'eth_sendRawTransaction', params: [raw] }) as Promise<`0x${string}`>
  }
  const receipt = async (hash: `0x${string}`) => (await devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] }))!

  test('a transaction that does not fit the gas left in the block waits in the pool for the next one', async () => {
    devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, gasLimit: 100_000n })
    // 80,000 gas each: after the first uses 21,000, 79,000 are left (the check counts gas used, as geth's does).
    const first = await send(0, 0, { gas: 80_000n })
    const second = await send(1, 0, { gas: 80_000n })
    await devnet.preconfirm()
    expect(devnet.node.pending().txs.map((t) => t.hash)).toEqual([first])
    expect(devnet.node.pool.get(second)).toBeDefined()
    const one = await devnet.node.seal()
    expect(one.txs.map((t) => t.hash)).toEqual([first])
    const two = await devnet.node.seal()
    expect(two.txs.map((t) => t.hash)).toEqual([second])
    expect(devnet.node.dropped).toEqual([])
  })

  test('a transaction its sender can no longer pay for is dropped with the reason; the block keeps the others', async () => {
    devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    // Both pass admission against the pending state; the first spends almost everything.
    const all = await send(0, 0, { value: parseEther('9999.99'), gas: 21_000n })
    const broke = await send(0, 1, { value: parseEther('1'), gas: 21_000n })
    const other = await send(1, 0, { gas: 21_000n })
    await devnet.preconfirm()
    expect(devnet.node.pending().txs.map((t) => t.hash)).toEqual([all, other])
    expect(devnet.node.dropped).toEqual([{ hash: broke, reason: expect.stringMatching(/^sender doesn't have enough funds to send tx/) }])
    const block = await devnet.node.seal()
    expect(block.txs.map((t) => t.hash)).toEqual([all, other])
    const receipts = await Promise.all([receipt(all), receipt(other)])
    expect(receipts.map((r) => BigInt(r.cumulativeGasUsed))).toEqual([21_000n, 42_000n])
    expect(receipts.map((r) => r.transactionIndex)).toEqual(['0x0', '0x1'])
  })
})

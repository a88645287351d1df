import { Account, createAddressFromString } from '@ethereumjs/util'
import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, test } from 'vitest'
import { type NodeWithParts, nodeWithParts } from '../nodeWithParts.js'

// The node's primitives under every cheat, snapshot and reorg method: a change
// to the head's state outside any transaction, a rebuild of the pending block,
// and a rewind of the sealed chain. They are the node's writable parts, not
// node operations: the node is created with them (test/nodeWithParts.ts).
describe('node state primitives', () => {
  let devnet: NodeWithParts
  afterEach(() => devnet?.close())

  const transfer = async (from: number, to: `0x${string}`, value: bigint, nonce: number) => {
    const signer = privateKeyToAccount(devnet.accounts[from]!.privateKey)
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to, value, nonce, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
    })
    return devnet.request({ method: 'eth_sendRawTransaction', params: [raw] }) as Promise<`0x${string}`>
  }
  const balance = async (address: `0x${string}`, tag: 'latest' | 'pending') =>
    BigInt(await devnet.request({ method: 'eth_getBalance', params: [address, tag] }))

  test('a cheat changes latest at once and the pre-confirmed transactions run again on top', async () => {
    devnet = await nodeWithParts()
    const [a, b] = devnet.accounts
    const headerRoot = devnet.node.chain.head().block.header.stateRoot
    await transfer(0, b!.address, parseEther('1'), 0)
    await devnet.preconfirm()
    await devnet.parts.cheat(async (state) => {
      const address = createAddressFromString(b!.address)
      const account = (await state.getAccount(address)) ?? new Account()
      account.balance = 5n
      await state.putAccount(address, account)
    })
    expect(await balance(b!.address, 'latest')).toBe(5n)
    expect(await balance(b!.address, 'pending')).toBe(5n + parseEther('1'))
    expect(devnet.node.pending().txs).toHaveLength(1)
    // The sealed header keeps what was sealed; only the state reads use moved.
    expect(devnet.node.chain.head().block.header.stateRoot).toEqual(headerRoot)
    const sealed = await devnet.seal()
    expect(devnet.node.chain.blockByNumber(sealed.number)!.txs).toHaveLength(1)
    expect(await balance(b!.address, 'latest')).toBe(5n + parseEther('1'))
    expect(await balance(a!.address, 'latest')).toBeLessThan(parseEther('9999'))
  })

  test('a pre-confirmed transaction the cheat makes unrunnable goes back to the pool', async () => {
    devnet = await nodeWithParts()
    const [a, b] = devnet.accounts
    const hash = await transfer(0, b!.address, parseEther('1'), 0)
    await devnet.preconfirm()
    await devnet.parts.cheat(async (state) => {
      const address = createAddressFromString(a!.address)
      const account = (await state.getAccount(address))!
      account.balance = 0n
      await state.putAccount(address, account)
    })
    expect(devnet.node.pending().txs).toHaveLength(0)
    expect(devnet.node.pool.get(hash)).toBeDefined()
  })

  test('rewind removes sealed blocks and announces them', async () => {
    devnet = await nodeWithParts()
    const [, b] = devnet.accounts
    await transfer(0, b!.address, 1n, 0)
    await devnet.seal()
    await devnet.seal()
    const removed: bigint[] = []
    devnet.node.events.on('removedBlocks', (blocks) => removed.push(...blocks.map((x) => x.number)))
    await devnet.parts.rewind(0n)
    expect(removed).toEqual([1n, 2n])
    expect(devnet.node.chain.height()).toBe(0n)
    expect(devnet.node.pending().number).toBe(1n)
    expect(await balance(b!.address, 'latest')).toBe(parseEther('10000'))
  })
})

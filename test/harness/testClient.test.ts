import { type Hex, createPublicClient, createTestClient, createWalletClient, http, parseEther, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type StartedDevnet, startDevnet } from '../../src/index.js'

// viem's test actions, unchanged, in both modes: each sends its mode's method
// names and parameter shapes (hardhat_mine, evm_setAutomine, intervals in ms, ...).
describe.each(['anvil', 'hardhat'] as const)('viem createTestClient({ mode: %s })', (mode) => {
  let devnet: StartedDevnet
  beforeAll(async () => {
    devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  })
  afterAll(() => devnet.close())
  const clients = () => {
    const transport = http(devnet.url)
    return {
      test: createTestClient({ chain: devnet.chain, transport, mode }),
      pub: createPublicClient({ chain: devnet.chain, transport }),
      wallet: createWalletClient({ chain: devnet.chain, transport }),
    }
  }
  const stranger = '0x000000000000000000000000000000000000f00d' as Hex

  test('state cheats, impersonation and mining', async () => {
    const { test: t, pub, wallet } = clients()
    const id = await t.snapshot()
    await t.setBalance({ address: stranger, value: parseEther('3') })
    expect(await pub.getBalance({ address: stranger })).toBe(parseEther('3'))
    await t.setNonce({ address: stranger, nonce: 4 })
    expect(await pub.getTransactionCount({ address: stranger })).toBe(4)
    await t.setCode({ address: stranger, bytecode: '0x60015460005260206000f3' })
    expect(await pub.getCode({ address: stranger })).toBe('0x60015460005260206000f3')
    await t.setStorageAt({ address: stranger, index: 1, value: `0x${'2a'.padStart(64, '0')}` })
    expect(await pub.getStorageAt({ address: stranger, slot: '0x1' })).toBe(`0x${'2a'.padStart(64, '0')}`)
    await t.setCode({ address: stranger, bytecode: '0x' })

    await t.impersonateAccount({ address: stranger })
    const hash = await wallet.sendTransaction({ account: stranger, to: devnet.accounts[1]!.address, value: 1n })
    await t.mine({ blocks: 1 })
    const receipt = await pub.getTransactionReceipt({ hash })
    expect(receipt).toMatchObject({ status: 'success', from: stranger, blockNumber: 1n })
    await t.stopImpersonatingAccount({ address: stranger })
    await expect(wallet.sendTransaction({ account: stranger, to: stranger, value: 1n })).rejects.toThrow()

    await t.mine({ blocks: 3, interval: 5 })
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(4n)
    await t.revert({ id })
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(0n)
    expect(await pub.getBalance({ address: stranger })).toBe(0n)
  })

  test('time', async () => {
    const { test: t, pub } = clients()
    const id = await t.snapshot()
    const start = (await pub.getBlock()).timestamp
    await t.increaseTime({ seconds: 60 })
    await t.mine({ blocks: 1 })
    expect((await pub.getBlock()).timestamp).toBe(start + 60n)
    await t.setNextBlockTimestamp({ timestamp: start + 500n })
    await t.mine({ blocks: 1 })
    expect((await pub.getBlock()).timestamp).toBe(start + 500n)
    await t.setBlockTimestampInterval({ interval: 9 })
    await t.mine({ blocks: 1 })
    expect((await pub.getBlock()).timestamp).toBe(start + 509n)
    await t.removeBlockTimestampInterval()
    await t.revert({ id })
    expect((await pub.getBlock()).timestamp).toBe(start)
  })

  test('mining control, pool and header settings', async () => {
    const { test: t, pub, wallet } = clients()
    const id = await t.snapshot()
    expect(await t.getAutomine()).toBe(false)
    await t.setAutomine(true)
    expect(await t.getAutomine()).toBe(true)
    await t.setAutomine(false)
    await t.setIntervalMining({ interval: 2 })
    expect(devnet.node.sealer.mode()).toMatchObject({ type: 'interval', blockTime: mode === 'hardhat' ? 2000 : 2 })
    await t.setIntervalMining({ interval: 0 })
    expect(devnet.node.sealer.mode()).toEqual({ type: 'manual', preconfirm: 'submit' })

    const from = devnet.accounts[0]!.address
    const hash = await wallet.sendTransaction({ account: from, to: stranger, value: 1n })
    expect((await t.getTxpoolStatus()).pending).toBe(1)
    await t.dropTransaction({ hash })
    expect((await t.getTxpoolStatus()).pending).toBe(0)

    await t.setBlockGasLimit({ gasLimit: 25_000_000n })
    await t.setCoinbase({ address: stranger })
    await t.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('2') })
    await t.setLoggingEnabled(false)
    await t.mine({ blocks: 1 })
    expect(await pub.getBlock()).toMatchObject({ gasLimit: 25_000_000n, miner: stranger, baseFeePerGas: parseGwei('2') })
    await expect(t.setMinGasPrice({ gasPrice: 1n })).rejects.toThrow(/EIP-1559/)
    await t.revert({ id })
    await t.reset()
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(0n)
  })
})

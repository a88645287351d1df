import { type Hex, parseEther } from 'viem'
import { afterEach, describe, expect, test } from 'vitest'
import { harnessDevnet, rpcError } from './helpers.js'

type H = Awaited<ReturnType<typeof harnessDevnet>>

const stranger = '0x00000000000000000000000000000000deadbeef' as Hex
// Runtime code that returns storage slot 1: PUSH1 1 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
const returnSlot1 = '0x60015460005260206000f3' as Hex

describe('state cheats', () => {
  let h: H
  afterEach(() => h?.devnet.close())

  test('setBalance, setNonce, setCode and setStorageAt change latest at once under every name', async () => {
    h = await harnessDevnet()
    expect(await h.rpc('anvil_setBalance', stranger, '0x2a')).toBe(null)
    expect(await h.balance(stranger)).toBe(42n)
    expect(await h.rpc('hardhat_setBalance', stranger, '0x2b')).toBe(true)
    expect(await h.rpc('evm_setAccountBalance', stranger, '0x2c')).toBe(null)
    expect(await h.balance(stranger, 'pending')).toBe(44n)

    expect(await h.rpc('anvil_setNonce', stranger, '0x5')).toBe(null)
    expect(await h.rpc('eth_getTransactionCount', stranger, 'latest')).toBe('0x5')
    expect(await h.rpc('hardhat_setNonce', stranger, '0x9')).toBe(true)
    expect(await h.rpc('eth_getTransactionCount', stranger, 'latest')).toBe('0x9')

    const contract = '0x00000000000000000000000000000000c0ffee00' as Hex
    expect(await h.rpc('anvil_setCode', contract, returnSlot1)).toBe(null)
    expect(await h.rpc('eth_getCode', contract, 'latest')).toBe(returnSlot1)
    // Slots and values may be short quantities or full words.
    expect(await h.rpc('anvil_setStorageAt', contract, '0x1', '0x07')).toBe(true)
    expect(await h.rpc('eth_getStorageAt', contract, '0x1', 'latest')).toBe(`0x${'7'.padStart(64, '0')}`)
    expect(await h.rpc('eth_call', { to: contract }, 'latest')).toBe(`0x${'7'.padStart(64, '0')}`)
    expect(await h.rpc('hardhat_setStorageAt', contract, `0x${'1'.padStart(64, '0')}`, `0x${'0'.repeat(64)}`)).toBe(true)
    expect(await h.rpc('eth_getStorageAt', contract, '0x1', 'latest')).toBe(`0x${'0'.repeat(64)}`)
    // Setting code keeps the balance and nonce.
    await h.rpc('hardhat_setCode', stranger, '0x00')
    expect(await h.balance(stranger)).toBe(44n)
    expect(await h.rpc('eth_getTransactionCount', stranger, 'latest')).toBe('0x9')
    // Bad input is an argument error, never a silent default.
    expect((await rpcError(h.rpc('anvil_setBalance', '0x12', '0x1'))).code).toBe(-32602)
    expect((await rpcError(h.rpc('anvil_setStorageAt', contract, `0x${'1'.repeat(66)}`, '0x0'))).code).toBe(-32602)
  })

  test('an impersonated account sends without its key; the sender is recorded as that address', async () => {
    h = await harnessDevnet()
    const to = h.devnet.accounts[2]!.address
    await h.rpc('anvil_setBalance', stranger, `0x${parseEther('5').toString(16)}`)
    expect((await rpcError(h.rpc('eth_sendTransaction', { from: stranger, to, value: '0x1' }))).message).toContain('unknown account')
    expect(await h.rpc('anvil_impersonateAccount', stranger)).toBe(null)
    const hash = (await h.rpc('eth_sendTransaction', { from: stranger, to, value: '0x100' })) as Hex
    await h.devnet.seal()
    const receipt = await h.rpc('eth_getTransactionReceipt', hash)
    expect(receipt).toMatchObject({ status: '0x1', from: stranger, transactionHash: hash })
    const tx = await h.rpc('eth_getTransactionByHash', hash)
    expect(tx).toMatchObject({ from: stranger, hash, r: '0x1', s: '0x1' })
    expect((await h.block()).transactions).toEqual([hash])
    expect(await h.rpc('eth_getTransactionCount', stranger, 'latest')).toBe('0x1')

    expect(await h.rpc('anvil_stopImpersonatingAccount', stranger)).toBe(null)
    expect((await rpcError(h.rpc('eth_sendTransaction', { from: stranger, to, value: '0x1' }))).message).toContain('unknown account')
    // Hardhat's names answer true; auto-impersonation admits any sender.
    expect(await h.rpc('hardhat_impersonateAccount', stranger)).toBe(true)
    expect(await h.rpc('hardhat_stopImpersonatingAccount', stranger)).toBe(true)
    expect(await h.rpc('anvil_autoImpersonateAccount', true)).toBe(null)
    await h.rpc('eth_sendTransaction', { from: stranger, to, value: '0x1' })
    await h.rpc('anvil_autoImpersonateAccount', false)
    expect((await rpcError(h.rpc('eth_sendTransaction', { from: stranger, to, value: '0x1' }))).message).toContain('unknown account')
  })

  test('two impersonated senders with identical fields get different hashes; eth_sendUnsignedTransaction needs no impersonation', async () => {
    h = await harnessDevnet()
    const other = '0x00000000000000000000000000000000deadbeee' as Hex
    const to = h.devnet.accounts[2]!.address
    for (const a of [stranger, other]) await h.rpc('anvil_setBalance', a, `0x${parseEther('1').toString(16)}`)
    const request = { to, value: '0x1', gas: '0x5208', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1', nonce: '0x0' }
    const first = await h.rpc('eth_sendUnsignedTransaction', { ...request, from: stranger })
    const second = await h.rpc('eth_sendUnsignedTransaction', { ...request, from: other })
    expect(first).not.toBe(second)
    await h.devnet.seal()
    expect((await h.rpc('eth_getTransactionReceipt', second)).from).toBe(other)
    expect(await h.balance(to)).toBe(parseEther('10000') + 2n)
  })
})

describe('mining control and pool', () => {
  let h: H
  afterEach(() => h?.devnet.close())

  test('automine and interval mining switch the sealer mode', async () => {
    h = await harnessDevnet()
    expect(await h.rpc('anvil_getAutomine')).toBe(false)
    await h.rpc('evm_setAutomine', true)
    expect(await h.rpc('hardhat_getAutomine')).toBe(true)
    // In auto mode a transaction is sealed before its hash comes back.
    const hash = await h.transfer(0, stranger, 1n)
    expect((await h.rpc('eth_getTransactionReceipt', hash)).blockNumber).toBe('0x1')
    await h.rpc('evm_setAutomine', false)
    expect(h.devnet.node.sealer.mode()).toEqual({ type: 'manual', preconfirm: 'submit' })
    // Automine off, as Anvil and Hardhat: nothing seals, but `pending` shows the transaction at once.
    const queued = await h.transfer(0, stranger, 5n)
    expect((await h.rpc('eth_getTransactionReceipt', queued)).blockHash).toBe(`0x${'00'.repeat(32)}`)
    expect(BigInt(await h.rpc('eth_getBalance', stranger, 'pending'))).toBe(6n)
    expect(BigInt(await h.rpc('eth_getBalance', stranger, 'latest'))).toBe(1n)
    expect(await h.rpc('eth_blockNumber')).toBe('0x1')
    await h.rpc('evm_setIntervalMining', 5000)
    expect(h.devnet.node.sealer.mode()).toEqual({ type: 'interval', blockTime: 5000, preconfInterval: 200 })
    await h.rpc('anvil_setIntervalMining', 3)
    expect(h.devnet.node.sealer.mode()).toMatchObject({ type: 'interval', blockTime: 3000 })
    await h.rpc('evm_setIntervalMining', 0)
    expect(h.devnet.node.sealer.mode()).toEqual({ type: 'manual', preconfirm: 'submit' })
    expect(await h.rpc('eth_mining')).toBe(false)
  })

  test('dropTransaction removes a pooled or pre-confirmed transaction; dropAll empties both', async () => {
    h = await harnessDevnet()
    const preconfirmed = await h.transfer(0, stranger, 1n)
    await h.devnet.preconfirm()
    const pooled = await h.transfer(1, stranger, 2n)
    expect(await h.rpc('anvil_dropTransaction', pooled)).toBe(pooled)
    expect(await h.rpc('anvil_dropTransaction', pooled)).toBe(null)
    expect(h.devnet.node.pool.size()).toBe(0)
    expect(await h.rpc('hardhat_dropTransaction', preconfirmed)).toBe(true)
    expect(h.devnet.node.pending().txs).toHaveLength(0)
    expect(await h.balance(stranger, 'pending')).toBe(0n)
    h.forgetNonces()
    await h.transfer(0, stranger, 1n)
    await h.devnet.preconfirm()
    await h.transfer(1, stranger, 2n)
    expect(await h.rpc('anvil_dropAllTransactions')).toBe(null)
    expect(h.devnet.node.pool.size()).toBe(0)
    expect(h.devnet.node.pending().txs).toHaveLength(0)
    await h.devnet.seal()
    expect((await h.block()).transactions).toEqual([])
  })

  test('block gas limit, next base fee and coinbase apply to the pending block and the blocks sealed after', async () => {
    h = await harnessDevnet()
    const coinbase = '0x00000000000000000000000000000000000c0b1e' as Hex
    expect(await h.rpc('evm_setBlockGasLimit', '0x1c9c380')).toBe(true)
    expect(await h.rpc('anvil_setNextBlockBaseFeePerGas', '0x100')).toBe(null)
    expect(await h.rpc('anvil_setCoinbase', coinbase)).toBe(null)
    expect(await h.rpc('eth_coinbase')).toBe(coinbase)
    await h.devnet.seal()
    const first = await h.block()
    expect(first).toMatchObject({ gasLimit: '0x1c9c380', baseFeePerGas: '0x100', miner: coinbase })
    await h.devnet.seal()
    // The base fee override is one-shot; the others stay.
    const second = await h.block()
    expect(second.baseFeePerGas).toBe('0xe0')
    expect(second).toMatchObject({ gasLimit: '0x1c9c380', miner: coinbase })
  })

  test('methods without meaning on a devnet are refused with the reason', async () => {
    h = await harnessDevnet()
    const minGas = await rpcError(h.rpc('anvil_setMinGasPrice', '0x1'))
    expect(minGas).toMatchObject({ code: -32602, message: expect.stringContaining('EIP-1559') })
    const fork = await rpcError(h.rpc('anvil_reset', { forking: { jsonRpcUrl: 'http://x' } }))
    // Forking is supported: an upstream that cannot be reached is a -32000 naming it, and the devnet keeps its chain.
    // (The chain id is asked for in one batch with the fork block: the message names the batch's methods.)
    expect(fork).toMatchObject({ code: -32000, message: expect.stringMatching(/^fork upstream http:\/\/x failed .*eth_chainId/) })
    expect(await h.rpc('eth_chainId')).toBe('0x7a69')
    expect((await rpcError(h.rpc('anvil_setRpcUrl', 'http://x'))).code).toBe(-32601)
  })

  test('anvil_reset without a fork puts the devnet back as it was created', async () => {
    h = await harnessDevnet()
    const genesis = await h.block()
    await h.transfer(0, stranger)
    await h.rpc('anvil_mine', '0x4')
    await h.rpc('evm_increaseTime', 77)
    await h.rpc('anvil_setBalance', stranger, '0x1')
    const id = await h.rpc('evm_snapshot')
    expect(await h.rpc('anvil_reset')).toBe(null)
    expect(await h.block()).toEqual(genesis)
    expect(await h.balance(stranger)).toBe(0n)
    expect(await h.rpc('evm_revert', id)).toBe(false)
    expect(await h.rpc('hardhat_reset', {})).toBe(true)
  })
})

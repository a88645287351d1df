import { encodeFunctionData, decodeFunctionResult, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { startTestDevnet } from '../utils.js'

// geth applies EIP-3607 (no transaction from an address with code) when it
// validates transactions, not to eth_call/eth_estimateGas/eth_createAccessList.
let t: Awaited<ReturnType<typeof startTestDevnet>>
beforeAll(async () => {
  t = await startTestDevnet()
})
afterAll(async () => {
  await t.devnet.close()
})

describe('calls from an address with code', () => {
  test('eth_call from the token to itself runs the token code', async () => {
    const token = t.devnet.token.address
    const data = encodeFunctionData({ abi: paymentTokenAbi, functionName: 'name' })
    for (const tag of ['latest', 'pending']) {
      const response = await t.rpc('eth_call', [{ from: token, to: token, data }, tag])
      expect(response.error).toBeUndefined()
      expect(decodeFunctionResult({ abi: paymentTokenAbi, functionName: 'name', data: response.result })).toBe('USD Coin')
    }
  })

  test('the call runs with the contract as msg.sender', async () => {
    // USDC blacklists its own address, so a transfer it sends reverts with the
    // blacklist reason: the call got past validation and ran as the token.
    const token = t.devnet.token.address
    const data = encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [t.devnet.accounts[1]!.address, 0n] })
    const response = await t.rpc('eth_call', [{ from: token, to: token, data }])
    expect(response.error).toMatchObject({ code: 3, message: 'execution reverted: Blacklistable: account is blacklisted' })
    const fromEoa = await t.rpc('eth_call', [{ from: t.devnet.accounts[1]!.address, to: token, data }])
    expect(BigInt(fromEoa.result)).toBe(1n)
  })

  test('eth_estimateGas and eth_createAccessList from a contract sender', async () => {
    const token = t.devnet.token.address
    const estimate = await t.rpc('eth_estimateGas', [{ from: token, to: t.devnet.accounts[1]!.address, value: '0x0' }])
    expect(estimate.result).toBe('0x5208')
    const data = encodeFunctionData({ abi: paymentTokenAbi, functionName: 'balanceOf', args: [token] })
    const list = await t.rpc('eth_createAccessList', [{ from: token, to: token, data }])
    // geth leaves the sender and the callee out of the list, so it is empty here
    expect(list.result).toMatchObject({ accessList: [] })
    expect(BigInt(list.result.gasUsed)).toBeGreaterThan(21_000n)
  })

  test('a value the contract cannot pay is still refused', async () => {
    const token = t.devnet.token.address
    const response = await t.rpc('eth_call', [{ from: token, to: t.devnet.accounts[1]!.address, value: `0x${parseEther('1').toString(16)}` }])
    expect(response.error?.message).toMatch(/insufficient funds/)
  })
})

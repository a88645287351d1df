import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseEther, parseGwei } from 'viem'
import { account, startTestDevnet } from '../utils.js'

let t: Awaited<ReturnType<typeof startTestDevnet>>
const a0 = account(0)
const a1 = account(1)

beforeAll(async () => {
  t = await startTestDevnet()
})
afterAll(async () => {
  await t.devnet.close()
})

describe('identity', () => {
  test('eth_chainId, net_version, eth_blockNumber, eth_accounts', async () => {
    expect(await t.publicClient.getChainId()).toBe(31337)
    expect((await t.rpc('net_version')).result).toBe('31337')
    expect(await t.publicClient.getBlockNumber()).toBe(0n)
    const accounts = (await t.rpc('eth_accounts')).result as string[]
    expect(accounts).toHaveLength(10)
    expect(accounts[0]).toBe(a0.address.toLowerCase())
    expect(await t.publicClient.getBalance({ address: a0.address })).toBe(parseEther('10000'))
  })
})

describe('pending vs latest', () => {
  test('behavior: a sent transaction is visible under pending after a tick, in latest after the seal', async () => {
    const hash = await t.walletClient.sendTransaction({ account: a0, to: a1.address, value: parseEther('1'), maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') })
    // Before the tick: pooled only. The pending nonce already counts it.
    expect(await t.publicClient.getTransactionCount({ address: a0.address, blockTag: 'pending' })).toBe(1)
    expect(await t.publicClient.getTransactionCount({ address: a0.address, blockTag: 'latest' })).toBe(0)
    expect((await t.rpc('eth_getTransactionReceipt', [hash])).result).toBeNull()

    const tick = (await t.rpc('devnet_preconfirm')).result
    expect(tick).toEqual({ number: '0x1', index: 1, transactions: [hash] })
    expect(await t.publicClient.getBalance({ address: a1.address, blockTag: 'pending' })).toBe(parseEther('10001'))
    expect(await t.publicClient.getBalance({ address: a1.address, blockTag: 'latest' })).toBe(parseEther('10000'))
    const pre = (await t.rpc('eth_getTransactionReceipt', [hash])).result
    expect(pre.blockHash).toBe(`0x${'00'.repeat(32)}`)
    expect(pre.blockNumber).toBe('0x1')
    expect(pre.status).toBe('0x1')
    const tx = (await t.rpc('eth_getTransactionByHash', [hash])).result
    expect(tx.blockHash).toBeNull()
    const pendingBlock = (await t.rpc('eth_getBlockByNumber', ['pending', false])).result
    expect(pendingBlock.number).toBe('0x1')
    expect(pendingBlock.transactions).toEqual([hash])

    const sealed = (await t.rpc('devnet_seal')).result
    expect(sealed.number).toBe('0x1')
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.blockHash).toBe(sealed.hash)
    // The promise is kept: same receipt but for the block hash.
    expect({ ...pre, blockHash: sealed.hash }).toEqual((await t.rpc('eth_getTransactionReceipt', [hash])).result)
    expect(await t.publicClient.getBalance({ address: a1.address })).toBe(parseEther('10001'))
    const status = (await t.rpc('devnet_status')).result
    expect(status.pending.parentHash).toBe(sealed.hash)
    expect(status.pending.number).toBe('0x2')
  })

  test('behavior: eth_call on pending runs at head + 1 with the pending timestamp', async () => {
    // NUMBER and TIMESTAMP, returned as two words.
    const code = '0x4360005242602052604060' + '00f3'
    const latest = await t.rpc('eth_call', [{ data: code }, 'latest'])
    const pending = await t.rpc('eth_call', [{ data: code }, 'pending'])
    const head = await t.publicClient.getBlock()
    const status = (await t.rpc('devnet_status')).result
    expect(BigInt(`0x${latest.result.slice(2, 66)}`)).toBe(head.number)
    expect(BigInt(`0x${pending.result.slice(2, 66)}`)).toBe(head.number + 1n)
    expect(BigInt(`0x${pending.result.slice(66)}`)).toBe(BigInt(status.pending.timestamp))
  })
})

describe('errors', () => {
  test('error: -32700 on bad JSON, -32600 on an empty batch and a bad envelope, -32601 unknown method', async () => {
    const post = (body: string) => fetch(t.devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.json() as Promise<any>)
    expect(await post('{nope')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
    expect(await post('[]')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
    expect((await post('{"id":1,"method":"eth_chainId"}')).error.code).toBe(-32600)
    expect(await post('{"jsonrpc":"2.0","id":7,"method":"eth_nope"}')).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'the method eth_nope does not exist/is not available' } })
    const batch = await post('[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":"b","method":"eth_blockNumber"}]')
    expect(batch.map((r: { id: unknown }) => r.id)).toEqual([1, 'b'])
  })

  test('error: -32602 names the argument', async () => {
    expect((await t.rpc('eth_getBalance', ['0x1234'])).error).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 4, want 40 for common.Address' })
    expect((await t.rpc('eth_getBalance', [])).error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    expect((await t.rpc('eth_getBalance', [a0.address, 'latest', 1])).error).toEqual({ code: -32602, message: 'too many arguments, want at most 2' })
    expect((await t.rpc('eth_getBlockByNumber', ['12', false])).error?.code).toBe(-32602)
  })

  test('error: code 3 with revert data for a reverting call', async () => {
    // PUSH revert payload Error("nope") and REVERT.
    const reason = '08c379a0' + '20'.padStart(64, '0') + '4'.padStart(64, '0') + '6e6f7065'.padEnd(64, '0')
    const init = `0x7f${reason.slice(0, 64)}6000527f${reason.slice(64, 128)}6020527f${reason.slice(128, 192)}6040527f${'00'.repeat(28)}${reason.slice(192)}60605260646000fd`
    const response = await t.rpc('eth_call', [{ data: init }])
    expect(response.error?.code).toBe(3)
    expect(response.error?.message).toBe('execution reverted: nope')
    expect(response.error?.data).toBe(`0x${reason}`)
  })

  test('error: pool rejections use geth words', async () => {
    const low = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: 1n, nonce: 0, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [low])).error).toMatchObject({ code: -32000, message: expect.stringMatching(/^nonce too low/) })
    const intrinsic = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: 1n, nonce: 1, gas: 20000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [intrinsic])).error?.message).toMatch(/^intrinsic gas too low/)
    const cheap = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: 1n, nonce: 1, gas: 21000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [cheap])).error?.message).toMatch(/^max fee per gas less than block base fee/)
    const rich = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: parseEther('100000'), nonce: 1, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [rich])).error?.message).toMatch(/^insufficient funds for gas \* price \+ value/)
    const ok = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: 1n, nonce: 1, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [ok])).result).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await t.rpc('eth_sendRawTransaction', [ok])).error?.message).toBe('already known')
    const same = await t.walletClient.signTransaction({ account: a0, to: a1.address, value: 2n, nonce: 1, gas: 21000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n, chainId: 31337 })
    expect((await t.rpc('eth_sendRawTransaction', [same])).error?.message).toBe('replacement transaction underpriced')
  })
})

describe('dev accounts', () => {
  test('eth_sendTransaction and eth_signTypedData_v4 sign with dev keys', async () => {
    const hash = (await t.rpc('eth_sendTransaction', [{ from: a0.address, to: a1.address, value: '0x1' }])).result
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    await t.rpc('devnet_seal')
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    const typed = { domain: { name: 'x', version: '1', chainId: 31337 }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M' as const, message: { a: 1n } }
    const sig = (await t.rpc('eth_signTypedData_v4', [a0.address, JSON.stringify({ ...typed, types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }], ...typed.types }, message: { a: '1' } })])).result
    expect(sig).toBe(await a0.signTypedData(typed))
  })
})

import { encodeFunctionData, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { balanceSlot } from '../../src/evm/tokenSlots.js'
import { type Devnet, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

// The struct logger on the dev chain: token transfers replayed from the
// parent state, as geth's debug_trace* do.
let devnet: Devnet
const hashes: `0x${string}`[] = []
const request = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const signer = privateKeyToAccount(devnet.accounts[0]!.privateKey)
  const transfer = (to: `0x${string}`, value: bigint, nonce: number) =>
    signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: devnet.token.address, nonce, gas: 200_000n,
      maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
      data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [to, value] }),
    })
  // Two transfers in one block; the second one is more than the sender has, so it reverts.
  hashes.push(await request('eth_sendRawTransaction', [await transfer(devnet.accounts[1]!.address, 1_000n, 0)]))
  hashes.push(await request('eth_sendRawTransaction', [await transfer(devnet.accounts[1]!.address, 10n ** 30n, 1)]))
  await devnet.seal()
})
afterAll(async () => {
  await devnet.close()
})

describe('debug_traceTransaction', () => {
  test('a token transfer: opcodes with gas, storage at SLOAD/SSTORE, gas equal to the receipt', async () => {
    const trace = await request('debug_traceTransaction', [hashes[0]])
    const receipt = await request('eth_getTransactionReceipt', [hashes[0]])
    expect(trace.failed).toBe(false)
    expect(trace.gas).toBe(Number(receipt.gasUsed))
    expect(BigInt(trace.returnValue)).toBe(1n)
    const logs = trace.structLogs as { op: string; gas: number; gasCost: number; depth: number; stack: string[]; storage?: Record<string, string> }[]
    expect(logs[0]).toMatchObject({ pc: 0, depth: 1, stack: [] })
    // gas left falls by each op's cost within a frame
    for (let i = 1; i < logs.length; i++)
      if (logs[i]!.depth === logs[i - 1]!.depth && !/CALL|CREATE/.test(logs[i - 1]!.op))
        expect(logs[i]!.gas).toBe(logs[i - 1]!.gas - logs[i - 1]!.gasCost)
    const stores = logs.filter((l) => l.op === 'SSTORE')
    expect(stores.length).toBeGreaterThanOrEqual(2)
    // The recipient's balance word is written with its new balance.
    const recipientSlot = balanceSlot(devnet.accounts[1]!.address)
    const last = stores[stores.length - 1]!.storage!
    const before = BigInt(await request('eth_getStorageAt', [devnet.token.address, recipientSlot, '0x0']))
    expect(BigInt(last[recipientSlot]!)).toBe(before + 1_000n)
    expect(logs[logs.length - 1]!.op).toBe('RETURN')
  })

  test('a reverted transfer: failed, the revert data as returnValue, ends in REVERT', async () => {
    const trace = await request('debug_traceTransaction', [hashes[1], { disableStorage: true, disableStack: true }])
    expect(trace.failed).toBe(true)
    expect(trace.returnValue.slice(0, 10)).toBe('0x08c379a0')
    expect(trace.structLogs.at(-1).op).toBe('REVERT')
    expect(trace.structLogs.every((l: object) => !('stack' in l) && !('storage' in l))).toBe(true)
  })

  test('memory and return data only on request', async () => {
    const plain = await request('debug_traceTransaction', [hashes[0]])
    expect(plain.structLogs.some((l: object) => 'memory' in l)).toBe(false)
    const full = await request('debug_traceTransaction', [hashes[0], { enableMemory: true }])
    const withMemory = full.structLogs.filter((l: { memory?: string[] }) => l.memory)
    expect(withMemory.length).toBeGreaterThan(0)
    for (const l of withMemory) for (const word of l.memory) expect(word).toMatch(/^0x[0-9a-f]{64}$/)
  })

  test('unknown, pre-confirmed and unsupported tracers', async () => {
    await expect(request('debug_traceTransaction', [`0x${'12'.repeat(32)}`])).rejects.toMatchObject({ code: -32000, message: 'transaction not found' })
    await expect(request('debug_traceTransaction', [hashes[0], { tracer: 'prestateTracer' }])).rejects.toMatchObject({ code: -32602 })
    await expect(request('debug_traceTransaction', [hashes[0], { enableMemory: 'yes' }])).rejects.toMatchObject({ code: -32602 })
  })
})

describe('debug_traceBlockByNumber / ByHash', () => {
  test('every transaction of the block, each equal to its debug_traceTransaction', async () => {
    const block = await request('eth_getBlockByNumber', ['latest', false])
    const byNumber = await request('debug_traceBlockByNumber', [block.number])
    const byHash = await request('debug_traceBlockByHash', [block.hash, {}])
    expect(byNumber.map((t: { txHash: string }) => t.txHash)).toEqual(hashes)
    expect(byHash).toEqual(byNumber)
    expect(byNumber[1].result).toEqual(await request('debug_traceTransaction', [hashes[1]]))
    await expect(request('debug_traceBlockByNumber', ['0x0'])).rejects.toMatchObject({ message: 'genesis is not traceable' })
    await expect(request('debug_traceBlockByNumber', ['0x99'])).rejects.toMatchObject({ code: -32000 })
  })
})

describe('callTracer', () => {
  test('a transaction: the root frame with the receipt gas; a revert with geth\'s error and reason', async () => {
    const ok = await request('debug_traceTransaction', [hashes[0], { tracer: 'callTracer' }])
    const receipt = await request('eth_getTransactionReceipt', [hashes[0]])
    expect(ok).toMatchObject({
      type: 'CALL',
      from: devnet.accounts[0]!.address.toLowerCase(),
      to: devnet.token.address.toLowerCase(),
      value: '0x0',
      gas: '0x30d40',
      gasUsed: receipt.gasUsed,
    })
    expect(BigInt(ok.output)).toBe(1n)
    const reverted = await request('debug_traceTransaction', [hashes[1], { tracer: 'callTracer' }])
    expect(reverted.error).toBe('execution reverted')
    expect(reverted.revertReason).toMatch(/exceeds balance/)
  })
})

describe('debug_traceCall', () => {
  // A contract that STATICCALLs the token's name() and logs the selector it sent.
  const caller = `0x${'c0de'.repeat(10)}`
  const code = () =>
    `0x6306fdde0360e01b600052${'6000600060046000'}73${devnet.token.address.slice(2).toLowerCase()}5afa5060046000a000`
  test('the call tree of a call with a state override: STATICCALL, output, logs with position', async () => {
    const stateOverrides = { [caller]: { code: code() } }
    const trace = await request('debug_traceCall', [{ from: devnet.accounts[3]!.address, to: caller }, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true }, stateOverrides }])
    expect(trace).toMatchObject({ type: 'CALL', to: caller, input: '0x' })
    expect(trace.calls).toHaveLength(1)
    expect(trace.calls[0]).toMatchObject({ type: 'STATICCALL', from: caller, to: devnet.token.address.toLowerCase(), input: '0x06fdde03' })
    expect(trace.calls[0].value).toBeUndefined()
    expect(trace.calls[0].output).toContain(Buffer.from('USD Coin').toString('hex'))
    expect(trace.logs).toEqual([{ address: caller, topics: [], data: '0x06fdde03', position: '0x1' }])
    const top = await request('debug_traceCall', [{ from: devnet.accounts[3]!.address, to: caller }, 'latest', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true }, stateOverrides }])
    expect(top.calls).toBeUndefined()
  })

  test('the struct logger by default, on pending too', async () => {
    const data = '0x06fdde03'
    const trace = await request('debug_traceCall', [{ to: devnet.token.address, data }, 'pending'])
    expect(trace.failed).toBe(false)
    expect(trace.structLogs.length).toBeGreaterThan(10)
    expect(trace.returnValue).toBe(await request('eth_call', [{ to: devnet.token.address, data }, 'pending']))
  })
})

describe('pre-confirmed transactions', () => {
  test('are traced before the seal, exactly as after it', async () => {
    const signer = privateKeyToAccount(devnet.accounts[4]!.privateKey)
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: devnet.token.address, nonce: 0, gas: 200_000n,
      maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
      data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [devnet.accounts[5]!.address, 7n] }),
    })
    const hash = await request('eth_sendRawTransaction', [raw])
    await expect(request('debug_traceTransaction', [hash])).rejects.toMatchObject({ message: 'transaction not found' })
    await devnet.preconfirm()
    const before = await request('debug_traceTransaction', [hash])
    const beforeCalls = await request('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(before.failed).toBe(false)
    expect((await request('debug_traceBlockByNumber', ['pending'])).map((t: { txHash: string }) => t.txHash)).toEqual([hash])
    await devnet.seal()
    expect(await request('debug_traceTransaction', [hash])).toEqual(before)
    expect(await request('debug_traceTransaction', [hash, { tracer: 'callTracer' }])).toEqual(beforeCalls)
  })
})

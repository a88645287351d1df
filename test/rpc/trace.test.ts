import { encodeFunctionData, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { balanceSlot } from '../../src/evm/tokenSlots.js'
import { type Devnet, createDevnet } from '../../src/index.js'

// The struct logger on the dev chain: token transfers replayed from the
// parent state, as geth's debug_trace* do.
let devnet: Devnet
const hashes: `0x${string}`[] = []
const request = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never) as Promise<any>

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
    await expect(request('debug_traceTransaction', [hashes[0], { tracer: 'callTracer' }])).rejects.toMatchObject({ code: -32602 })
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
    await expect(request('debug_traceBlockByNumber', ['pending'])).rejects.toMatchObject({ code: -32000 })
  })
})

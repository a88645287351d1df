import { type Hex, encodeAbiParameters, encodeFunctionData, pad, parseAbi, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { callKey, createCallMemo } from '../../src/node/callMemo.js'
import { type NodeWithParts, nodeWithParts } from '../nodeWithParts.js'

/*
 * A probe contract that answers (SLOAD(0), NUMBER, TIMESTAMP, SELFBALANCE) as
 * four words: every input of a call that a new head, a cheat, a revert or a
 * pending refresh can change. Any other calldata whose first byte is 0xff
 * reverts with that calldata as revert data.
 */
const probeCode = ('0x' +
  // calldata[0] == 0xff → revert(0, calldatasize) after copying the calldata
  '600035' + '60f81c' + '60ff' + '14' + '6023' + '57' +
  // SLOAD(0), NUMBER, TIMESTAMP, SELFBALANCE → memory[0..128], return it
  '600054600052' + '43602052' + '42604052' + '47606052' + '60806000f3' +
  // 0x23: JUMPDEST; CALLDATACOPY(0, 0, size); REVERT(0, size)
  '5b' + '366000600037' + '3660' + '00fd') as Hex
const probe = '0x00000000000000000000000000000000000c0ffe' as const

describe('eth_call memo', () => {
  let devnet: NodeWithParts
  let snapshot: Hex
  const request = (method: string, params: unknown[]) => devnet.request({ method, params } as never) as Promise<any>
  const read = async (tag: string | Hex = 'latest', data: Hex = '0x') => {
    const out = (await request('eth_call', [{ to: probe, data }, tag])) as Hex
    const words = [0, 1, 2, 3].map((i) => BigInt(`0x${out.slice(2 + 64 * i, 66 + 64 * i)}`))
    return { slot: words[0]!, number: words[1]!, timestamp: words[2]!, balance: words[3]! }
  }
  const memoSize = () => devnet.parts.views.memo.size()

  beforeAll(async () => {
    devnet = await nodeWithParts({ mining: 'manual', clock: 'virtual', quiet: true })
    await request('anvil_setCode', [probe, probeCode])
    await request('anvil_setStorageAt', [probe, '0x0', pad('0x07')])
    snapshot = await request('evm_snapshot', [])
  })
  afterAll(() => devnet?.close())
  beforeEach(async () => {
    await request('evm_revert', [snapshot])
    snapshot = await request('evm_snapshot', [])
  })

  test('behavior: the same call at the same view is kept from its second run on', async () => {
    const first = await read()
    const size = memoSize()
    expect(await read()).toEqual(first)
    expect(memoSize()).toBe(size + 1)
    expect(await read()).toEqual(first)
    expect(memoSize()).toBe(size + 1)
    // Another calldata is another entry, once asked twice.
    await read('latest', '0x01')
    expect(memoSize()).toBe(size + 1)
    await read('latest', '0x01')
    expect(memoSize()).toBe(size + 2)
  })

  test('behavior: a cheat on the head is seen at once', async () => {
    expect((await read()).slot).toBe(7n)
    await request('anvil_setStorageAt', [probe, '0x0', pad('0x08')])
    expect((await read()).slot).toBe(8n)
    await request('anvil_setBalance', [probe, toHex(1234n)])
    expect(await read()).toMatchObject({ slot: 8n, balance: 1234n })
  })

  test('behavior: a new block is seen at latest; the old block keeps its answer', async () => {
    const before = await read()
    await request('anvil_setStorageAt', [probe, '0x0', pad('0x09')])
    await request('evm_mine', [])
    const after = await read()
    expect(after.number).toBe(before.number + 1n)
    expect(after.slot).toBe(9n)
    // By number, the block before still answers what it held (a hit or a run, the same).
    expect(await read(toHex(before.number))).toEqual({ ...before, slot: 9n })
  })

  test('behavior: a snapshot revert brings back the old answer', async () => {
    const before = await read()
    const id = await request('evm_snapshot', [])
    await request('anvil_setStorageAt', [probe, '0x0', pad('0x0a')])
    await request('evm_mine', [])
    expect(await read()).toMatchObject({ slot: 10n, number: before.number + 1n })
    expect(await request('evm_revert', [id])).toBe(true)
    expect(await read()).toEqual(before)
  })

  test('behavior: a rollback and a reorg are seen', async () => {
    await request('evm_mine', [])
    const top = await read()
    await request('anvil_rollback', [1])
    expect((await read()).number).toBe(top.number - 1n)
    await request('evm_mine', [])
    await request('anvil_setStorageAt', [probe, '0x0', pad('0x0b')])
    expect(await read()).toMatchObject({ number: top.number, slot: 11n })
    await request('anvil_reorg', [1, []])
    // The replacement block was built on the parent's state: the cheat on the replaced head is gone.
    expect(await read()).toMatchObject({ number: top.number, slot: 7n })
  })

  test('behavior: pending follows pre-confirmation and time changes', async () => {
    const latest = await read('latest')
    const pending = await read('pending')
    expect(pending.number).toBe(latest.number + 1n)
    // A pre-confirmed transfer to the probe shows under pending only.
    const signer = privateKeyToAccount(devnet.accounts[0]!.privateKey)
    const nonce = Number(await request('eth_getTransactionCount', [signer.address, 'pending']))
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: probe, value: 55n, nonce, gas: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
    })
    await request('eth_sendRawTransaction', [raw])
    await devnet.preconfirm()
    expect((await read('pending')).balance).toBe(pending.balance + 55n)
    expect((await read('latest')).balance).toBe(latest.balance)
    // Re-timing the pending block is seen by the next pending call.
    await request('evm_setNextBlockTimestamp', [toHex(pending.timestamp + 1000n)])
    expect((await read('pending')).timestamp).toBe(pending.timestamp + 1000n)
  })

  test('behavior: a revert answers the same error every time', async () => {
    const data = '0xff0102' as Hex
    for (let i = 0; i < 2; i++)
      await expect(request('eth_call', [{ to: probe, data }, 'latest'])).rejects.toMatchObject({ code: 3, data })
  })

  test('behavior: a call that throws before running is not kept', async () => {
    const poor = '0x00000000000000000000000000000000000b0b0b' as const
    const call = { from: poor, to: probe, value: '0x1' }
    await expect(request('eth_call', [call, 'latest'])).rejects.toThrow(/insufficient funds/)
    await request('anvil_setBalance', [poor, toHex(10n)])
    expect((await request('eth_call', [call, 'latest'])).length).toBe(2 + 4 * 64)
  })

  test('behavior: calls with overrides are never kept', async () => {
    const size = memoSize()
    const out = await request('eth_call', [{ to: probe }, 'latest', { [probe]: { stateDiff: { [pad('0x0')]: pad('0x63') } } }])
    expect(BigInt((out as Hex).slice(0, 66))).toBe(0x63n)
    expect(memoSize()).toBe(size)
    expect((await read()).slot).toBe(7n)
  })
})

describe('createCallMemo', () => {
  const view = (n: number) => ({ kind: 'sealed', block: { n } }) as never
  const answer = (returnData: Hex) => ({ returnData, reverted: false, error: undefined })

  test('behavior: calls at once share one run; a throwing run is not kept', async () => {
    const memo = createCallMemo()
    let runs = 0
    const run = async () => (runs++, answer('0x01'))
    const v = view(1)
    await Promise.all([memo.run(v, 'k', run), memo.run(v, 'k', run), memo.run(v, 'k', run)])
    expect(runs).toBe(1)
    // Asked once: answered, not kept; the second run is kept and answers the third.
    expect(memo.size()).toBe(0)
    await memo.run(v, 'k', run)
    await memo.run(v, 'k', run)
    expect(runs).toBe(2)
    for (let i = 0; i < 2; i++) await expect(memo.run(v, 'x', async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(memo.size()).toBe(1)
    // Another view object with the same key runs again.
    await memo.run(view(1), 'k', run)
    expect(runs).toBe(3)
  })

  test('behavior: a call asked once is answered but not kept', async () => {
    const memo = createCallMemo()
    let runs = 0
    const v = view(1)
    for (let i = 0; i < 100; i++) await memo.run(v, `once-${i}`, async () => (runs++, answer('0x01')))
    expect(runs).toBe(100)
    expect(memo.size()).toBe(0)
  })

  test('behavior: bounded by entries, bytes, and the largest answer kept', async () => {
    let runs = 0
    const counted = (returnData: Hex) => async () => (runs++, answer(returnData))
    const v = view(1)
    // Entries: the oldest leaves first.
    const byCount = createCallMemo({ entries: 3, bytes: 1 << 20, entryBytes: 1 << 10 })
    // Each key twice: kept from its second run on.
    for (const k of ['a', 'b', 'c', 'd']) for (let i = 0; i < 2; i++) await byCount.run(v, k, counted('0x00'))
    expect(byCount.size()).toBe(3)
    expect(runs).toBe(8)
    await byCount.run(v, 'b', counted('0x00'))
    await byCount.run(v, 'a', counted('0x00'))
    expect(runs).toBe(9)
    // Bytes: 102 characters of return data count as 169 with the key ('0:m1') and overhead; three do not fit in 400, two do.
    runs = 0
    const byBytes = createCallMemo({ entries: 100, bytes: 400, entryBytes: 150 })
    const medium = `0x${'00'.repeat(50)}` as Hex
    for (const k of ['m1', 'm2', 'm3']) for (let i = 0; i < 2; i++) await byBytes.run(v, k, counted(medium))
    expect(byBytes.size()).toBe(2)
    await byBytes.run(v, 'm3', counted(medium))
    expect(runs).toBe(6)
    // An answer over entryBytes is answered, never kept.
    const big = `0x${'00'.repeat(100)}` as Hex
    expect(await byBytes.run(v, 'big', counted(big))).toEqual(answer(big))
    for (let i = 0; i < 2; i++) await byBytes.run(v, 'big', counted(big))
    expect(runs).toBe(9)
    // So is a call whose key is over entryBytes (large calldata).
    const longKey = 'k'.repeat(151)
    for (let i = 0; i < 3; i++) await byBytes.run(v, longKey, counted('0x00'))
    expect(runs).toBe(12)
  })

  test('callKey: requests that decode alike share a key; any field tells them apart', () => {
    const base = { to: probe, data: '0x01' as Hex }
    expect(callKey(base)).toBe(callKey({ ...base, from: undefined }))
    const keys = [
      base, { ...base, from: probe }, { ...base, gas: 1n }, { ...base, value: 1n }, { ...base, gasPrice: 1n },
      { ...base, maxFeePerGas: 1n }, { ...base, maxPriorityFeePerGas: 1n }, { ...base, nonce: 1n }, { ...base, type: 1 },
      { ...base, to: null }, { ...base, accessList: [{ address: probe, storageKeys: [] }] },
      { ...base, data: encodeFunctionData({ abi: parseAbi(['function f(uint256)']), args: [1n] }) },
      { ...base, data: encodeAbiParameters([{ type: 'uint256' }], [1n]) },
    ].map((r) => callKey(r as never))
    expect(new Set(keys).size).toBe(keys.length)
  })
})

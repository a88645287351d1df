import { type Hex, encodeFunctionData, parseGwei } from 'viem'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { account, startTestDevnet } from '../utils.js'
import { type TestDevnet, call, connect, erc20, sendTransfer } from './helpers.js'

let t: TestDevnet
let ws: Awaited<ReturnType<typeof connect>>

beforeEach(async () => {
  ws?.close()
  await t?.devnet.close()
  t = await startTestDevnet()
  ws = await connect(t.devnet.wsUrl)
})
afterAll(async () => {
  ws.close()
  await t.devnet.close()
})

type Log = { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; logIndex: Hex; removed: boolean; data: Hex }

/** A token transfer signed locally, not sent: raw bytes for anvil_reorg / devnet_reorg. */
async function signedTransfer(from: number, to: number, value: bigint, nonce: number) {
  return t.walletClient.signTransaction({
    account: account(from),
    chain: t.devnet.chain,
    to: t.devnet.token.address,
    data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [account(to).address, value] }),
    nonce,
    gas: 100_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

/** eth_blockNumber uncached (viem caches getBlockNumber). */
const head = async () => BigInt(await call(t, 'eth_blockNumber'))
const allLogs = async () => (await call(t, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])) as Log[]
const blockHash = async (n: number) => ((await call(t, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { hash: Hex }).hash

/** Blocks 1..3, one token transfer each: 0→1, 1→2, 2→3. */
async function threeBlocks() {
  const hashes: Hex[] = []
  for (const [from, to] of [[0, 1], [1, 2], [2, 3]] as const) {
    hashes.push(await sendTransfer(t, from, to, BigInt(from * 100 + to)))
    await t.devnet.seal()
  }
  return hashes
}

describe('anvil_reorg', () => {
  test('replaces the top blocks at the same heights with the given transactions (raw and request)', async () => {
    const [tx1, tx2, tx3] = await threeBlocks()
    const logsSub = await ws.call('eth_subscribe', ['logs', {}])
    const filter = await call(t, 'eth_newFilter', [{}])
    const oldLogs = await allLogs()
    const [block1, block2, block3] = [await blockHash(1), await blockHash(2), await blockHash(3)]

    const raw = await signedTransfer(4, 5, 45n, 0)
    const request = {
      from: account(6).address,
      to: t.devnet.token.address,
      data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [account(7).address, 67n] }),
    }
    expect(await ws.call('anvil_reorg', [2, [[raw, 0], [request, 1]]])).toBeNull()

    expect(await head()).toBe(3n)
    expect(await blockHash(1)).toBe(block1)
    expect(await blockHash(2)).not.toBe(block2)
    expect(await blockHash(3)).not.toBe(block3)
    // eth_getLogs: the canonical chain only.
    const logs = await allLogs()
    expect(logs.map((l) => BigInt(l.data))).toEqual([1n, 45n, 67n])
    expect(logs[1]!.blockHash).toBe(await blockHash(2))
    // As on Anvil, the replaced blocks' transactions are gone.
    expect(await call(t, 'eth_getTransactionByHash', [tx2])).toBeNull()
    expect(await call(t, 'eth_getTransactionByHash', [tx3])).toBeNull()
    expect(await call(t, 'eth_getTransactionReceipt', [tx1])).not.toBeNull()
    await t.devnet.preconfirm()
    expect((await call(t, 'eth_getBlockByNumber', ['pending', false])).transactions).toEqual([])

    // Subscribers and filters: the removed logs first, then the new blocks' logs.
    const removed = oldLogs.slice(1).map((l) => ({ ...l, removed: true }))
    expect(ws.received(logsSub)).toEqual([...removed, ...logs.slice(1)])
    expect(await call(t, 'eth_getFilterChanges', [filter])).toEqual([...removed, ...logs.slice(1)])
  })

  test("errors as Anvil's: depth beyond the chain, a block index beyond the depth", async () => {
    await threeBlocks()
    expect((await t.rpc('anvil_reorg', [5, []])).error).toEqual({
      code: -32602,
      message: 'Reorg depth must not exceed current chain height: current height 3, depth 5',
    })
    const raw = await signedTransfer(4, 5, 1n, 0)
    expect((await t.rpc('anvil_reorg', [2, [[raw, 2]]])).error).toEqual({
      code: -32602,
      message: 'Block number for reorg tx will exceed the reorged chain height. Block number 2 must not exceed (depth-1) 1',
    })
    expect(await head()).toBe(3n)
  })
})

describe('anvil_rollback', () => {
  test('removes the top blocks (1 by default); their logs are re-emitted as removed', async () => {
    const [, , tx3] = await threeBlocks()
    const logsSub = await ws.call('eth_subscribe', ['logs', {}])
    const before = await allLogs()
    expect(await call(t, 'anvil_rollback', [])).toBeNull()
    expect(await head()).toBe(2n)
    expect(await call(t, 'eth_getTransactionReceipt', [tx3])).toBeNull()
    expect(ws.received(logsSub)).toEqual([{ ...before[2]!, removed: true }])
    await call(t, 'anvil_rollback', [2])
    expect(await head()).toBe(0n)
    expect(await allLogs()).toEqual([])
    expect((await t.rpc('anvil_rollback', [1])).error).toEqual({
      code: -32602,
      message: 'Rollback depth must not exceed current chain height: current height 0, depth 1',
    })
  })
})

describe('devnet_reorg', () => {
  test('without transactions: empty replacement blocks; the reorged-away transactions return to the pool', async () => {
    const [, tx2, tx3] = await threeBlocks()
    const result = await call(t, 'devnet_reorg', [{ depth: 2 }])
    expect(result.removed.map((b: { number: Hex }) => b.number)).toEqual(['0x2', '0x3'])
    expect(result.added.map((b: { number: Hex }) => b.number)).toEqual(['0x2', '0x3'])
    expect((await call(t, 'eth_getBlockByNumber', ['0x2', false])).transactions).toEqual([])
    expect((await allLogs()).map((l) => BigInt(l.data))).toEqual([1n])
    // Back in the pool: the next tick pre-confirms them, the next seal includes them again.
    await t.devnet.preconfirm()
    expect((await call(t, 'eth_getBlockByNumber', ['pending', false])).transactions).toEqual([tx2, tx3])
    const block = await t.devnet.seal()
    expect((await call(t, 'eth_getTransactionReceipt', [tx3])).blockHash).toBe(block.hash)
    expect((await allLogs()).map((l) => BigInt(l.data))).toEqual([1n, 102n, 203n])
  })

  test('with transactions: exactly those (flat list into the first block, or one list per block); the replaced ones are dropped', async () => {
    const [, tx2, tx3] = await threeBlocks()
    const a = await signedTransfer(4, 5, 45n, 0)
    const b = await signedTransfer(6, 7, 67n, 0)
    await call(t, 'devnet_reorg', [{ depth: 2, transactions: [[a], [b]] }])
    expect((await allLogs()).map((l) => [BigInt(l.blockNumber), BigInt(l.data)])).toEqual([[1n, 1n], [2n, 45n], [3n, 67n]])
    expect(await call(t, 'eth_getTransactionByHash', [tx2])).toBeNull()
    expect(await call(t, 'eth_getTransactionByHash', [tx3])).toBeNull()
    await call(t, 'devnet_reorg', [{ depth: 1, transactions: [] }])
    expect((await allLogs()).map((l) => BigInt(l.data))).toEqual([1n, 45n])
    expect((await t.rpc('devnet_reorg', [{ depth: 0 }])).error?.code).toBe(-32602)
    expect((await t.rpc('devnet_reorg', [{ depth: 1, transactions: ['0x12'] }])).error?.code).toBe(-32602)
  })

  test('pre-confirmed transactions survive a reorg: pendingLogs sees them removed, then pre-confirmed again', async () => {
    await threeBlocks()
    const pendingSub = await ws.call('eth_subscribe', ['pendingLogs'])
    const waiting = await sendTransfer(t, 8, 9, 89n)
    await ws.call('devnet_preconfirm')
    await ws.call('devnet_reorg', [{ depth: 1, transactions: [] }])
    await ws.call('devnet_preconfirm')
    const seen = ws.received(pendingSub) as Log[]
    expect(seen.map((l) => [l.transactionHash, l.removed])).toEqual([
      [waiting, false],
      [waiting, true],
      [waiting, false],
    ])
    const block = await t.devnet.seal()
    expect((await call(t, 'eth_getTransactionReceipt', [waiting])).blockHash).toBe(block.hash)
  })

  test('an indexer that rescans an overlapping window and replaces rows by (blockHash, logIndex) ends with exactly the canonical logs', async () => {
    const window = 3
    const rows = new Map<string, Log>()
    let indexed = -1
    /** Rescans from `window` blocks below the last indexed head; rows of rescanned blocks are replaced. */
    const poll = async () => {
      const latest = Number(await head())
      const from = Math.max(0, indexed - window + 1)
      const logs = (await call(t, 'eth_getLogs', [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${latest.toString(16)}` }])) as Log[]
      for (const [key, row] of rows) if (Number(row.blockNumber) >= from) rows.delete(key)
      for (const log of logs) rows.set(`${log.blockHash}:${log.logIndex}`, log)
      indexed = latest
    }
    /** A second indexer fed by filter changes only: removed logs delete their row. */
    const fed = new Map<string, Log>()
    const filter = await call(t, 'eth_newFilter', [{ fromBlock: '0x0' }])
    const drain = async () => {
      for (const log of (await call(t, 'eth_getFilterChanges', [filter])) as Log[]) {
        const key = `${log.blockHash}:${log.logIndex}`
        if (log.removed) fed.delete(key)
        else fed.set(key, log)
      }
    }

    await threeBlocks()
    await poll()
    await drain()
    await call(t, 'anvil_reorg', [2, [[await signedTransfer(4, 5, 45n, 0), 1]]])
    await sendTransfer(t, 6, 7, 67n)
    await t.devnet.seal()
    await call(t, 'devnet_reorg', [{ depth: 1 }])
    await t.devnet.seal() // re-includes the reorged-away transfer
    await poll()
    await drain()

    const canonical = await allLogs()
    const sorted = (m: Map<string, Log>) => [...m.values()].sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex))
    expect(canonical.map((l) => BigInt(l.data))).toEqual([1n, 45n, 67n])
    expect(sorted(rows)).toEqual(canonical)
    expect(sorted(fed)).toEqual(canonical)
  })
})

describe('devnet_dropPreconfirmed', () => {
  test('drops pre-confirmed transactions; the pending state is rebuilt and pendingLogs gets the dropped logs as removed', async () => {
    const pendingSub = await ws.call('eth_subscribe', ['pendingLogs'])
    const a = await sendTransfer(t, 0, 1, 1n)
    const aNext = await sendTransfer(t, 0, 1, 2n) // depends on a's nonce
    const b = await sendTransfer(t, 2, 3, 3n)
    await ws.call('devnet_preconfirm')
    const result = await ws.call('devnet_dropPreconfirmed', [[a]])
    expect(result).toEqual({ dropped: [a], requeued: [aNext] })
    const removed = (ws.received(pendingSub) as Log[]).filter((l) => l.removed)
    expect(removed.map((l) => l.transactionHash)).toEqual([a, aNext])
    expect((await call(t, 'eth_getBlockByNumber', ['pending', false])).transactions).toEqual([b])
    const pendingLogs = (await call(t, 'eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }])) as Log[]
    expect(pendingLogs.map((l) => [l.transactionHash, l.logIndex])).toEqual([[b, '0x0']])
    expect(await call(t, 'eth_getTransactionReceipt', [a])).toBeNull()
    // Without hashes: every pre-confirmed transaction is dropped.
    expect((await call(t, 'devnet_dropPreconfirmed')).dropped).toEqual([b])
    expect((await call(t, 'eth_getBlockByNumber', ['pending', false])).transactions).toEqual([])
  })
})

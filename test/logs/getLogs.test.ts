import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { account, startTestDevnet } from '../utils.js'
import { type TestDevnet, call, pad, sendTransfer, transferTopic } from './helpers.js'

const zeroHash = `0x${'00'.repeat(32)}`
let t: TestDevnet
let token: string

/** Every log of blocks [from, to] read from the receipts, the slow way: what the index must agree with. */
async function logsFromReceipts(from: number, to: number) {
  const out = []
  for (let n = from; n <= to; n++) {
    const receipts = (await call(t, 'eth_getBlockReceipts', [`0x${n.toString(16)}`])) as { logs: unknown[] }[]
    for (const r of receipts) out.push(...r.logs)
  }
  return out
}

beforeAll(async () => {
  t = await startTestDevnet()
  token = t.devnet.token.address.toLowerCase()
  // Blocks 1..3: transfers 0→1, 1→2, 2→0, 0→2 in varying blocks.
  await sendTransfer(t, 0, 1, 100n)
  await t.devnet.seal()
  await sendTransfer(t, 1, 2, 200n)
  await sendTransfer(t, 2, 0, 300n)
  await t.devnet.seal()
  await t.devnet.seal() // an empty block
  await sendTransfer(t, 0, 2, 400n)
  await t.devnet.seal()
})
afterAll(async () => {
  await t.devnet.close()
})

describe('eth_getLogs filters', () => {
  test('the index returns exactly what the receipts hold, in order, with blockTimestamp', async () => {
    const logs = (await call(t, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])) as Record<string, unknown>[]
    expect(logs).toEqual(await logsFromReceipts(0, 4))
    expect(logs).toHaveLength(4)
    for (const log of logs) {
      const block = (await call(t, 'eth_getBlockByHash', [log.blockHash, false])) as { timestamp: string; number: string }
      expect(log.blockTimestamp).toBe(block.timestamp)
      expect(log.blockNumber).toBe(block.number)
      expect(log.removed).toBe(false)
    }
  })

  test('address (one or a list), positional topics, null wildcards and OR lists', async () => {
    const all = await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', address: token }])
    expect(all).toHaveLength(4)
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', address: [account(5).address] }])).toEqual([])
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', address: [account(5).address, token] }])).toEqual(all)
    const from0 = (await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [transferTopic, pad(account(0).address)] }])) as { data: string }[]
    expect(from0.map((l) => BigInt(l.data))).toEqual([100n, 400n])
    const to2 = (await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [null, null, pad(account(2).address)] }])) as { data: string }[]
    expect(to2.map((l) => BigInt(l.data))).toEqual([200n, 400n])
    const either = (await call(t, 'eth_getLogs', [
      { fromBlock: '0x1', toBlock: '0x4', topics: [null, [pad(account(1).address), pad(account(2).address)]] },
    ])) as { data: string }[]
    expect(either.map((l) => BigInt(l.data))).toEqual([200n, 300n])
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [pad(account(9).address)] }])).toEqual([])
  })

  test('an empty list at a topic position matches any topic there, like null (geth)', async () => {
    const all = await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4' }])
    expect(all).toHaveLength(4)
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [[]] }])).toEqual(all)
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [transferTopic, [], []] }])).toEqual(all)
    const to2 = (await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', address: token, topics: [[], [], [pad(account(2).address)]] }])) as { data: string }[]
    expect(to2.map((l) => BigInt(l.data))).toEqual([200n, 400n])
    // Each list is still a position: a Transfer log has 3 topics, so 4 positions match none (geth).
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', topics: [[], [], [], []] }])).toEqual([])
  })

  test('a range: defaults to latest, tags, the empty block in between', async () => {
    expect(await call(t, 'eth_getLogs', [{}])).toEqual(await logsFromReceipts(4, 4))
    expect(await call(t, 'eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x3' }])).toEqual([])
    expect(await call(t, 'eth_getLogs', [{ fromBlock: 'earliest', toBlock: '0x2' }])).toEqual(await logsFromReceipts(0, 2))
  })

  test('blockHash selects one block and excludes a range', async () => {
    const block2 = (await call(t, 'eth_getBlockByNumber', ['0x2', false])) as { hash: string }
    expect(await call(t, 'eth_getLogs', [{ blockHash: block2.hash }])).toEqual(await logsFromReceipts(2, 2))
    const both = await t.rpc('eth_getLogs', [{ blockHash: block2.hash, fromBlock: '0x1' }])
    expect(both.error).toEqual({ code: -32602, message: 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other' })
    const unknown = await t.rpc('eth_getLogs', [{ blockHash: `0x${'ab'.repeat(32)}` }])
    expect(unknown.error?.code).toBe(-32000)
  })

  test('errors as geth: reversed range, beyond the head, bad topics', async () => {
    expect((await t.rpc('eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x2' }])).error).toEqual({ code: -32602, message: 'invalid block range params' })
    expect((await t.rpc('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x20' }])).error).toEqual({
      code: -32602,
      message: 'block range extends beyond current head block',
    })
    expect((await t.rpc('eth_getLogs', [{ topics: ['0x12'] }])).error?.code).toBe(-32602)
    expect((await t.rpc('eth_getLogs', [{ topics: [null, null, null, null, null] }])).error?.code).toBe(-32602)
  })
})

describe('eth_getLogs and pre-confirmed logs', () => {
  test('toBlock pending adds the pre-confirmed logs (pending number, zero hash); pending..pending gives only those', async () => {
    const hash = await sendTransfer(t, 3, 4, 500n)
    await t.devnet.preconfirm()
    const sealed = (await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])) as unknown[]
    const withPending = (await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'pending' }])) as Record<string, string>[]
    expect(withPending).toHaveLength(sealed.length + 1)
    expect(withPending.slice(0, sealed.length)).toEqual(sealed)
    const pending = withPending.at(-1)!
    const pendingBlock = (await call(t, 'eth_getBlockByNumber', ['pending', false])) as { number: string; timestamp: string }
    expect(pending).toMatchObject({
      transactionHash: hash,
      blockHash: zeroHash,
      blockNumber: pendingBlock.number,
      blockTimestamp: pendingBlock.timestamp,
      logIndex: '0x0',
      removed: false,
    })
    expect(await call(t, 'eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual([pending])
    expect((await t.rpc('eth_getLogs', [{ fromBlock: 'pending', toBlock: 'latest' }])).error?.code).toBe(-32602)

    // After the seal the same log is served from the block, with its real hash.
    const block = await t.devnet.seal()
    const after = (await call(t, 'eth_getLogs', [{ fromBlock: 'latest' }])) as Record<string, string>[]
    expect(after).toEqual([{ ...pending, blockHash: block.hash }])
    expect(await call(t, 'eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual([])
  })
})

describe('limits (off by default)', () => {
  test("a maximum block span and result count, with reth's -32602 messages", async () => {
    const limited = await startTestDevnet({ logs: { maxBlockRange: 2, maxResults: 2 } })
    try {
      for (let i = 0; i < 4; i++) {
        await sendTransfer(limited, 0, 1, BigInt(i + 1))
        await limited.devnet.seal()
      }
      await sendTransfer(limited, 0, 1, 10n)
      await sendTransfer(limited, 0, 1, 11n)
      await sendTransfer(limited, 0, 1, 12n)
      await limited.devnet.seal() // block 5 holds three logs
      expect((await limited.rpc('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4' }])).error).toEqual({
        code: -32602,
        message: 'query exceeds max block range 2',
      })
      expect((await limited.rpc('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }])).error).toEqual({
        code: -32602,
        message: 'query exceeds max results 2, retry with the range 1-2',
      })
      expect(await call(limited, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }])).toHaveLength(2)
      // A single block is always returned whole, as reth does.
      expect(await call(limited, 'eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x5' }])).toHaveLength(3)
      // Selective queries count only matches.
      expect(await call(limited, 'eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x4', topics: [null, null, pad(account(5).address)] }])).toEqual([])
    } finally {
      await limited.devnet.close()
    }
  })
})

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFilterStore, filterTimeoutMs, maxBufferedPerFilter } from '../../src/node/filters.js'
import { account, startTestDevnet } from '../utils.js'
import { type TestDevnet, call, pad, sendTransfer, transferTopic } from './helpers.js'

let t: TestDevnet

beforeAll(async () => {
  t = await startTestDevnet()
})
afterAll(async () => {
  await t.devnet.close()
})

describe('log filters', () => {
  test('eth_newFilter collects matching logs of new blocks; each poll returns what arrived since the last', async () => {
    const id = await call(t, 'eth_newFilter', [{ address: t.devnet.token.address, topics: [transferTopic, null, pad(account(3).address)] }])
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    expect(await call(t, 'eth_getFilterChanges', [id])).toEqual([])
    const a = await sendTransfer(t, 0, 3, 1n)
    await sendTransfer(t, 0, 4, 2n) // not to account 3
    await t.devnet.preconfirm()
    // Pre-confirmed logs are not filter changes: only sealed blocks are.
    expect(await call(t, 'eth_getFilterChanges', [id])).toEqual([])
    const block = await t.devnet.seal()
    const changes = (await call(t, 'eth_getFilterChanges', [id])) as Record<string, unknown>[]
    expect(changes).toEqual([expect.objectContaining({ transactionHash: a, blockHash: block.hash, removed: false })])
    expect(changes).toEqual(await call(t, 'eth_getLogs', [{ blockHash: block.hash, topics: [null, null, pad(account(3).address)] }]))
    expect(await call(t, 'eth_getFilterChanges', [id])).toEqual([])
    const b = await sendTransfer(t, 1, 3, 3n)
    await t.devnet.seal()
    const c = await sendTransfer(t, 2, 3, 4n)
    await t.devnet.seal()
    expect(((await call(t, 'eth_getFilterChanges', [id])) as { transactionHash: string }[]).map((l) => l.transactionHash)).toEqual([b, c])
    // eth_getFilterLogs runs the filter as eth_getLogs would (default range: latest).
    expect(((await call(t, 'eth_getFilterLogs', [id])) as { transactionHash: string }[]).map((l) => l.transactionHash)).toEqual([c])
  })

  test('a numeric range bounds the changes; getFilterLogs uses the range', async () => {
    const head = Number(await call(t, 'eth_blockNumber'))
    const id = await call(t, 'eth_newFilter', [{ fromBlock: '0x1', toBlock: `0x${(head + 1).toString(16)}` }])
    await sendTransfer(t, 0, 5, 1n)
    await t.devnet.seal() // head + 1: inside
    await sendTransfer(t, 0, 5, 2n)
    await t.devnet.seal() // head + 2: outside
    const changes = (await call(t, 'eth_getFilterChanges', [id])) as { blockNumber: string }[]
    expect(changes.map((l) => Number(l.blockNumber))).toEqual([head + 1])
    const logs = (await call(t, 'eth_getFilterLogs', [id])) as unknown[]
    expect(logs).toEqual(await call(t, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: `0x${(head + 1).toString(16)}` }]))
  })
})

describe('log filters with an empty topic list', () => {
  test('[] at a position matches any topic there, as in eth_getLogs', async () => {
    const id = await call(t, 'eth_newFilter', [{ topics: [[], [], [pad(account(6).address)]] }])
    const hash = await sendTransfer(t, 0, 6, 1n)
    await t.devnet.seal()
    expect(((await call(t, 'eth_getFilterChanges', [id])) as { transactionHash: string }[]).map((l) => l.transactionHash)).toEqual([hash])
  })
})

describe('block and pending transaction filters', () => {
  test('eth_newBlockFilter gives the hashes of blocks sealed since the last poll', async () => {
    const id = await call(t, 'eth_newBlockFilter')
    const one = await t.devnet.seal()
    const two = await t.devnet.seal()
    expect(await call(t, 'eth_getFilterChanges', [id])).toEqual([one.hash, two.hash])
    expect(await call(t, 'eth_getFilterChanges', [id])).toEqual([])
    expect((await t.rpc('eth_getFilterLogs', [id])).error).toEqual({ code: -32000, message: 'filter not found' })
  })

  test('eth_newPendingTransactionFilter: hashes, or full transactions', async () => {
    const hashes = await call(t, 'eth_newPendingTransactionFilter')
    const full = await call(t, 'eth_newPendingTransactionFilter', [true])
    const hash = await sendTransfer(t, 6, 7, 1n)
    expect(await call(t, 'eth_getFilterChanges', [hashes])).toEqual([hash])
    expect(await call(t, 'eth_getFilterChanges', [full])).toEqual([expect.objectContaining({ hash, from: account(6).address.toLowerCase() })])
    await t.devnet.seal()
  })
})

describe('lifecycle', () => {
  test('eth_uninstallFilter, unknown ids, bad ids', async () => {
    const id = await call(t, 'eth_newBlockFilter')
    expect(await call(t, 'eth_uninstallFilter', [id])).toBe(true)
    expect(await call(t, 'eth_uninstallFilter', [id])).toBe(false)
    expect((await t.rpc('eth_getFilterChanges', [id])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect((await t.rpc('eth_getFilterChanges', ['nope'])).error?.code).toBe(-32602)
  })

  test('a filter idle for 5 minutes expires, as in geth; polling keeps it alive', async () => {
    let now = 0
    const store = createFilterStore({ events: t.devnet.node.events, chain: t.devnet.node.chain, now: () => now })
    try {
      const idle = store.newBlockFilter()
      const polled = store.newBlockFilter()
      now = 4 * 60_000
      expect(store.takeChanges(polled)?.changes).toEqual([])
      now = filterTimeoutMs + 1
      store.sweep()
      expect(store.get(idle)).toBeUndefined()
      expect(store.get(polled)).toBeDefined()
      // Past its timeout a filter is gone even before the next sweep.
      now += filterTimeoutMs
      expect(store.takeChanges(polled)).toBeUndefined()
    } finally {
      store.close()
    }
  })

  test('forgotten log and block filters hold nothing between polls; a poll still returns every change', async () => {
    // The soak's leak: each unpolled filter kept every new log or hash for up to 5 minutes.
    const store = createFilterStore({ events: t.devnet.node.events, chain: t.devnet.node.chain })
    try {
      const logs = store.newLogFilter({ addresses: new Set([t.devnet.token.address.toLowerCase()]), topics: [] }, { from: undefined, to: undefined }, {})
      const blocks = store.newBlockFilter()
      const sent: string[] = []
      const sealed: string[] = []
      for (let i = 0; i < 5; i++) {
        sent.push(await sendTransfer(t, 8, 9, BigInt(i + 1)))
        sealed.push((await t.devnet.seal()).hash)
      }
      expect(store.buffered()).toBe(0)
      const changes = store.takeChanges(logs)!.changes as { log: { txHash: string }; removed: boolean }[]
      expect(changes.map((c) => [c.log.txHash, c.removed])).toEqual(sent.map((hash) => [hash, false]))
      expect(store.takeChanges(blocks)!.changes).toEqual(sealed)
      expect(store.takeChanges(logs)!.changes).toEqual([])
    } finally {
      store.close()
    }
  })

  test(`a filter that buffers more than ${maxBufferedPerFilter} items is uninstalled (a poll: filter not found)`, async () => {
    const store = createFilterStore({ events: t.devnet.node.events, chain: t.devnet.node.chain, maxBuffered: 2 })
    try {
      const polled = store.newPendingTransactionFilter(false)
      const forgotten = store.newPendingTransactionFilter(false)
      const first = await sendTransfer(t, 8, 9, 1n)
      const second = await sendTransfer(t, 8, 9, 2n)
      expect(store.takeChanges(polled)!.changes).toEqual([first, second])
      await sendTransfer(t, 8, 9, 3n)
      // The forgotten filter passed the cap and is gone; the polled one holds the third hash.
      expect(store.buffered()).toBe(1)
      expect(store.get(forgotten)).toBeUndefined()
      expect(store.takeChanges(polled)!.changes).toHaveLength(1)
      await t.devnet.seal()
    } finally {
      store.close()
    }
  })

  test('save() and restore() bring back the filters and their pending changes', async () => {
    const filters = t.devnet.node.filters
    const kept = await call(t, 'eth_newBlockFilter')
    const block = await t.devnet.seal()
    const saved = filters.save()
    expect(await call(t, 'eth_getFilterChanges', [kept])).toEqual([block.hash])
    const later = await call(t, 'eth_newBlockFilter')
    await call(t, 'eth_uninstallFilter', [kept])
    filters.restore(saved)
    expect(await call(t, 'eth_getFilterChanges', [kept])).toEqual([block.hash])
    expect((await t.rpc('eth_getFilterChanges', [later])).error?.message).toBe('filter not found')
  })
})

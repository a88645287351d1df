import { describe, expect, test } from 'vitest'
import {
  type Authorization,
  type LogSource,
  type SourceLog,
  createMemoryStore,
  createTokenIndexer,
} from '../../src/payments/index.js'

const token = '0x0000000000000000000000000000000000000001'
const payer = '0x0000000000000000000000000000000000000002'
const shop = '0x0000000000000000000000000000000000000003'
const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const authorization = (n: number, validBefore = 10_000n): Authorization => ({
  primaryType: 'ReceiveWithAuthorization',
  domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: token },
  from: payer,
  to: shop,
  value: 5n,
  validAfter: 0n,
  validBefore,
  nonce: nonce(n),
})
const signature = `0x${'ab'.repeat(65)}` as const

/** A fake chain: blocks with hashes and token logs; `reorg` swaps the tail. */
function createFakeChain() {
  type Block = { number: bigint; hash: `0x${string}`; timestamp: bigint; logs: SourceLog[] }
  let fork = 0
  const blocks: Block[] = []
  const requests: { fromBlock: bigint; toBlock: bigint }[] = []
  const blockHash = (number: bigint) => `0x${fork.toString(16).padStart(2, '0')}${number.toString(16).padStart(62, '0')}` as const
  const chain = {
    blocks,
    requests,
    /** Appends a block holding the given events. */
    mine(events: ({ event: 'AuthorizationUsed' | 'AuthorizationCanceled'; nonce: number } | { event: 'Transfer'; value: bigint })[] = []) {
      const number = BigInt(blocks.length)
      const hash = blockHash(number)
      const logs = events.map((e, logIndex): SourceLog => {
        const base = { blockHash: hash, blockNumber: number, logIndex, transactionHash: `0x${'f'.repeat(62)}${logIndex.toString(16).padStart(2, '0')}` as const }
        return e.event === 'Transfer'
          ? { ...base, event: 'Transfer', from: payer, to: shop, value: e.value }
          : { ...base, event: e.event, from: payer, nonce: nonce(e.nonce) }
      })
      blocks.push({ number, hash, timestamp: 1000n + number * 2n, logs })
      return hash
    },
    mineEmpty(count: number) {
      for (let i = 0; i < count; i++) chain.mine()
    },
    /** Drops the last `depth` blocks; the next `mine` calls build the new branch. */
    reorg(depth: number) {
      fork++
      blocks.splice(blocks.length - depth, depth)
    },
    source: {
      async getHead() {
        const head = blocks.at(-1)!
        return { number: head.number, timestamp: head.timestamp }
      },
      async getLogs({ fromBlock, toBlock }) {
        requests.push({ fromBlock, toBlock })
        return blocks.filter((b) => b.number >= fromBlock && b.number <= toBlock).flatMap((b) => b.logs)
      },
    } satisfies LogSource,
  }
  chain.mine() // genesis
  return chain
}

describe('createTokenIndexer', () => {
  test('default: AuthorizationUsed captures the record', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })

    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }, { event: 'Transfer', value: 5n }])
    const pass = await indexer.poll()
    expect(pass).toMatchObject({ fromBlock: 0n, toBlock: 1n, added: 2, removed: 0 })
    expect(pass.moves).toEqual([{ orderId: 'o1', from: 'authorized', to: 'captured' }])
    const record = await store.get('o1')
    expect(record).toMatchObject({ state: 'captured', blockNumber: 1n, blockHash: chain.blocks[1]!.hash })
  })

  test('behavior: idempotent; every retry changes nothing', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }, { event: 'Transfer', value: 5n }])
    await indexer.poll()
    const before = { record: await store.get('o1'), rows: await store.logsBetween(0n, 100n) }
    for (let i = 0; i < 3; i++) {
      const again = await indexer.poll()
      expect(again).toMatchObject({ added: 0, removed: 0, moves: [] })
    }
    // and a second indexer over the same store (a restarted process) agrees
    expect(await createTokenIndexer({ store, token, source: chain.source }).poll()).toMatchObject({ added: 0, removed: 0, moves: [] })
    expect({ record: await store.get('o1'), rows: await store.logsBetween(0n, 100n) }).toEqual(before)
  })

  test('behavior: chunks of at most 2,000 blocks, overlapping window rescanned', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    const indexer = createTokenIndexer({ store, token, source: chain.source, chunkSize: 5000, overlap: 10 })
    chain.mineEmpty(4500)
    await indexer.poll()
    expect(chain.requests).toEqual([
      { fromBlock: 0n, toBlock: 1999n },
      { fromBlock: 2000n, toBlock: 3999n },
      { fromBlock: 4000n, toBlock: 4500n },
    ])
    chain.requests.length = 0
    chain.mineEmpty(5)
    await indexer.poll()
    expect(chain.requests).toEqual([{ fromBlock: 4491n, toBlock: 4505n }])
  })

  test('behavior: a reorg removes the capture, then re-includes it', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })

    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }, { event: 'Transfer', value: 5n }])
    chain.mine()
    await indexer.poll()
    expect((await store.get('o1'))?.state).toBe('captured')

    // The block with the capture is replaced by one without it.
    chain.reorg(2)
    chain.mine()
    chain.mine()
    const removed = await indexer.poll()
    expect(removed).toMatchObject({ removed: 2, moves: [{ orderId: 'o1', from: 'captured', to: 'authorized' }] })
    expect(await store.logsBetween(0n, 10n)).toEqual([])
    expect((await store.get('o1'))?.history.at(-1)).toMatchObject({ state: 'authorized', reason: 'reorg' })

    // The capture transaction is re-included in a later block.
    const hash = chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }, { event: 'Transfer', value: 5n }])
    const again = await indexer.poll()
    expect(again.moves).toEqual([{ orderId: 'o1', from: 'authorized', to: 'captured' }])
    expect(await store.get('o1')).toMatchObject({ state: 'captured', blockHash: hash, blockNumber: 3n })
    expect((await store.get('o1'))?.history.map((h) => h.state)).toEqual(['authorized', 'captured', 'authorized', 'captured'])
  })

  test('behavior: a capture that moves to another block in one pass updates the location', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }])
    await indexer.poll()
    chain.reorg(1)
    const hash = chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }])
    const pass = await indexer.poll()
    expect(pass).toMatchObject({ added: 1, removed: 1 })
    expect(await store.get('o1')).toMatchObject({ state: 'captured', blockHash: hash })
  })

  test('behavior: the chain got shorter', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine()
    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }])
    await indexer.poll()
    chain.reorg(2)
    chain.mine()
    const pass = await indexer.poll()
    expect(pass.moves).toEqual([{ orderId: 'o1', from: 'captured', to: 'authorized' }])
    expect(await store.getCursor(`indexer:${token}`)).toBe(1n)
  })

  test('behavior: honours removed: true from the source', async () => {
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const used: SourceLog = {
      blockHash: `0x${'12'.repeat(32)}`,
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: `0x${'34'.repeat(32)}`,
      event: 'AuthorizationUsed',
      from: payer,
      nonce: nonce(1),
    }
    let logs: SourceLog[] = [used]
    const source: LogSource = {
      async getHead() {
        return { number: 1n, timestamp: 10n }
      },
      async getLogs() {
        return logs
      },
    }
    const indexer = createTokenIndexer({ store, token, source })
    await indexer.poll()
    expect((await store.get('o1'))?.state).toBe('captured')
    logs = [{ ...used, removed: true }]
    const pass = await indexer.poll()
    expect(pass.moves).toEqual([{ orderId: 'o1', from: 'captured', to: 'authorized' }])
    expect(await store.logsBetween(0n, 5n)).toEqual([])
  })

  test('behavior: ingest applies pushed logs, honouring removed: true', async () => {
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const indexer = createTokenIndexer({ store, token, source: createFakeChain().source })
    const used: SourceLog = {
      blockHash: `0x${'12'.repeat(32)}`,
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: `0x${'34'.repeat(32)}`,
      event: 'AuthorizationUsed',
      from: payer,
      nonce: nonce(1),
    }
    expect(await indexer.ingest([used])).toEqual([{ orderId: 'o1', from: 'authorized', to: 'captured' }])
    expect(await indexer.ingest([used])).toEqual([])
    expect(await indexer.ingest([{ ...used, removed: true }])).toEqual([{ orderId: 'o1', from: 'captured', to: 'authorized' }])
  })

  test('behavior: AuthorizationCanceled cancels; an event from another authorizer is ignored', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    await store.insert({ orderId: 'o2', authorization: { ...authorization(2), from: shop }, signature })
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine([{ event: 'AuthorizationCanceled', nonce: 1 }, { event: 'AuthorizationUsed', nonce: 2 }])
    const pass = await indexer.poll()
    expect(pass.moves).toEqual([{ orderId: 'o1', from: 'authorized', to: 'canceled' }])
    expect((await store.get('o2'))?.state).toBe('authorized')
  })

  test('behavior: open records past validBefore (chain time) expire', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'late', authorization: authorization(1, 1003n), signature })
    await store.insert({ orderId: 'fine', authorization: authorization(2, 5000n), signature })
    await store.insert({ orderId: 'gone', authorization: authorization(3, 1001n), signature })
    await store.transition('gone', 'voided')
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine() // timestamp 1002
    expect((await indexer.poll()).moves).toEqual([])
    chain.mine() // timestamp 1004
    expect((await indexer.poll()).moves).toEqual([{ orderId: 'late', from: 'authorized', to: 'expired' }])
    expect((await store.get('fine'))?.state).toBe('authorized')
    expect((await store.get('gone'))?.state).toBe('voided')
  })

  test('behavior: a voided transfer authorization that someone submits anyway is captured', async () => {
    const chain = createFakeChain()
    const store = createMemoryStore()
    await store.insert({ orderId: 'o1', authorization: { ...authorization(1), primaryType: 'TransferWithAuthorization' }, signature })
    await store.transition('o1', 'voided')
    const indexer = createTokenIndexer({ store, token, source: chain.source })
    chain.mine([{ event: 'AuthorizationUsed', nonce: 1 }])
    expect((await indexer.poll()).moves).toEqual([{ orderId: 'o1', from: 'voided', to: 'captured' }])
  })
})

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  type Authorization,
  NonceReusedError,
  OrderExistsError,
  type PaymentStore,
  RecordNotFoundError,
  type TokenLogRow,
  createMemoryStore,
  createSqliteStore,
  createStore,
  redactRecord,
} from '../../src/payments/index.js'

const dir = mkdtempSync(join(tmpdir(), 'devnet-payments-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const hash = (n: number) => `0x${n.toString(16).padStart(64, 'a')}` as const
const authorization = (n: number): Authorization => ({
  primaryType: 'ReceiveWithAuthorization',
  domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x0000000000000000000000000000000000000001' },
  from: '0x0000000000000000000000000000000000000002',
  to: '0x0000000000000000000000000000000000000003',
  value: 12_500_000n,
  validAfter: 1_700_000_000n,
  validBefore: 1_700_000_900n,
  nonce: nonce(n),
})
const signature = `0x${'ab'.repeat(65)}` as const
const log = (n: number, blockNumber: bigint, extra: Partial<TokenLogRow> = {}): TokenLogRow => ({
  blockHash: hash(Number(blockNumber)),
  logIndex: n,
  blockNumber,
  transactionHash: hash(1000 + n),
  event: 'AuthorizationUsed',
  from: '0x0000000000000000000000000000000000000002',
  nonce: nonce(n),
  ...extra,
})

let files = 0
const kinds: [string, (clock: () => number) => PaymentStore][] = [
  ['memory', (clock) => createMemoryStore({ clock })],
  ['sqlite', (clock) => createSqliteStore({ clock, path: join(dir, `store-${files++}.sqlite`) })],
]

describe.each(kinds)('%s store', (_, create) => {
  test('default: insert and get', async () => {
    let now = 1000
    const store = create(() => now)
    const record = await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    expect(record.state).toBe('authorized')
    expect(record.history).toEqual([{ state: 'authorized', at: 1000 }])
    now = 2000
    expect(await store.get('o1')).toEqual(record)
    expect(await store.getByNonce(nonce(1))).toEqual(record)
    expect(await store.getByNonce(nonce(1).toUpperCase().replace('0X', '0x') as never)).toEqual(record)
    expect(await store.get('missing')).toBeUndefined()
    // bigints survive the round trip
    expect((await store.get('o1'))?.authorization.value).toBe(12_500_000n)
    await store.close()
  })

  test('error: one record per order', async () => {
    const store = create(() => 1)
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    await expect(store.insert({ orderId: 'o1', authorization: authorization(2), signature })).rejects.toThrow(OrderExistsError)
    await store.close()
  })

  test('error: a nonce can never be stored for a second order', async () => {
    const store = create(() => 1)
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const error = await store.insert({ orderId: 'o2', authorization: authorization(1), signature }).catch((e) => e)
    expect(error).toBeInstanceOf(NonceReusedError)
    expect(error.shortMessage).toContain('already stored for order "o1"')
    // nor after the first order moved on
    await store.transition('o1', 'voided')
    await expect(store.insert({ orderId: 'o3', authorization: authorization(1), signature })).rejects.toThrow(NonceReusedError)
    expect(await store.get('o2')).toBeUndefined()
    await store.close()
  })

  test('behavior: transitions are timestamped with the injected clock', async () => {
    let now = 10
    const store = create(() => now)
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    now = 20
    await store.transition('o1', 'preconfirmed', { transactionHash: hash(5) })
    now = 30
    const record = await store.transition('o1', 'captured', { blockHash: hash(6), blockNumber: 6n })
    expect(record.history).toEqual([
      { state: 'authorized', at: 10 },
      { state: 'preconfirmed', at: 20, transactionHash: hash(5) },
      { state: 'captured', at: 30, blockHash: hash(6), blockNumber: 6n },
    ])
    expect(await store.get('o1')).toEqual(record)
    expect(await store.list({ state: 'captured' })).toEqual([record])
    expect(await store.list({ state: ['authorized', 'failed'] })).toEqual([])
    await expect(store.transition('o1', 'voided')).rejects.toThrow('cannot move from "captured" to "voided"')
    await expect(store.transition('nope', 'voided')).rejects.toThrow(RecordNotFoundError)
    await store.close()
  })

  test('behavior: log rows are replaced by (blockHash, logIndex)', async () => {
    const store = create(() => 1)
    await store.putLogs([log(0, 5n), log(1, 5n), log(0, 6n)])
    await store.putLogs([log(0, 5n)]) // a retry changes nothing
    expect(await store.logsBetween(0n, 10n)).toHaveLength(3)
    await store.putLogs([log(1, 5n, { event: 'AuthorizationCanceled' })])
    const rows = await store.logsBetween(5n, 5n)
    expect(rows.map((r) => [r.logIndex, r.event])).toEqual([
      [0, 'AuthorizationUsed'],
      [1, 'AuthorizationCanceled'],
    ])
    expect(await store.logsForNonce(nonce(0))).toHaveLength(2)
    await store.deleteLogs([{ blockHash: hash(5), logIndex: 0 }])
    expect(await store.logsForNonce(nonce(0))).toEqual([log(0, 6n)])
    const transfer = log(7, 8n, { event: 'Transfer', to: '0x0000000000000000000000000000000000000003', value: 5n, nonce: undefined })
    delete transfer.nonce
    await store.putLogs([transfer])
    expect(await store.logsBetween(8n, 8n)).toEqual([transfer])
    expect(await store.getCursor('c')).toBeUndefined()
    await store.setCursor('c', 42n)
    expect(await store.getCursor('c')).toBe(42n)
    await store.close()
  })

  test('behavior: redactRecord hides the signature', async () => {
    const store = create(() => 1)
    const record = await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    const text = JSON.stringify(redactRecord(record), (_, v) => (typeof v === 'bigint' ? v.toString() : v))
    expect(text).not.toContain('abab')
    expect(text).toContain('[redacted]')
    await store.close()
  })
})

describe('createSqliteStore', () => {
  test('behavior: file is owner-only (0600) and durable across reopen', async () => {
    const path = join(dir, 'nested', 'durable.sqlite')
    const store = createSqliteStore({ path })
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    await store.transition('o1', 'failed', { reason: 'paused' })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    if (existsSync(`${path}-wal`)) expect(statSync(`${path}-wal`).mode & 0o077).toBe(0)
    expect(statSync(join(dir, 'nested')).mode & 0o077).toBe(0)
    await store.close()

    const reopened = createSqliteStore({ path })
    const record = await reopened.get('o1')
    expect(record?.state).toBe('failed')
    expect(record?.reason).toBe('paused')
    expect(record?.authorization.validBefore).toBe(1_700_000_900n)
    await expect(reopened.insert({ orderId: 'o2', authorization: authorization(1), signature })).rejects.toThrow(NonceReusedError)
    await reopened.close()
  })

  test('behavior: an order id that looks like a bigint stays a string', async () => {
    const store = createSqliteStore({ path: join(dir, 'ids.sqlite') })
    await store.insert({ orderId: '5n', authorization: authorization(9), signature })
    expect((await store.get('5n'))?.orderId).toBe('5n')
    await store.close()
  })
})

describe('createStore', () => {
  test('default: SQLite', async () => {
    const path = join(dir, 'default.sqlite')
    const store = createStore({ path })
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    await store.close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  test('args: memory', async () => {
    const store = createStore({ type: 'memory' })
    await store.insert({ orderId: 'o1', authorization: authorization(1), signature })
    expect((await store.get('o1'))?.state).toBe('authorized')
  })
})

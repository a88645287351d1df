import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import type { Hash, Hex } from 'viem'
import { NonceReusedError, OrderExistsError, RecordNotFoundError } from './errors.js'
import { applyTransition } from './states.js'
import type { PaymentStore, StoreOptions } from './store.js'
import type { PaymentRecord, TokenLogRow } from './types.js'

/**
 * The few better-sqlite3 calls used here, typed locally: the package ships no
 * types, and loading it through `createRequire` keeps the native addon out of
 * programs that only use the memory store.
 */
type Statement = {
  run(...params: unknown[]): { changes: number }
  get(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}
type Database = {
  prepare(sql: string): Statement
  exec(sql: string): void
  pragma(sql: string): unknown
  transaction<fn extends (...args: never[]) => unknown>(fn: fn): fn
  close(): void
}

/** Default location of the durable store, relative to the working directory. */
export const defaultStorePath = '.devnet-payments/payments.sqlite'

const schema = `
  CREATE TABLE IF NOT EXISTS payment_records (
    order_id TEXT PRIMARY KEY,
    nonce TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS payment_records_state ON payment_records (state);
  CREATE TABLE IF NOT EXISTS token_logs (
    block_hash TEXT NOT NULL,
    log_index INTEGER NOT NULL,
    block_number INTEGER NOT NULL,
    transaction_hash TEXT NOT NULL,
    event TEXT NOT NULL,
    from_address TEXT NOT NULL,
    to_address TEXT,
    value TEXT,
    nonce TEXT,
    PRIMARY KEY (block_hash, log_index)
  );
  CREATE INDEX IF NOT EXISTS token_logs_block ON token_logs (block_number);
  CREATE INDEX IF NOT EXISTS token_logs_nonce ON token_logs (nonce);
  CREATE TABLE IF NOT EXISTS cursors (key TEXT PRIMARY KEY, block TEXT NOT NULL);
`

// Bigints are tagged so that no string field (an order id "5n") can be
// mistaken for one when the record is read back.
const encode = (record: PaymentRecord) =>
  JSON.stringify(record, (_, value) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value))
const decode = (text: string) =>
  JSON.parse(text, (_, value) =>
    value && typeof value === 'object' && typeof value.$bigint === 'string' ? BigInt(value.$bigint) : value,
  ) as PaymentRecord

type LogRow = {
  block_hash: Hash
  log_index: number
  block_number: number | bigint
  transaction_hash: Hash
  event: TokenLogRow['event']
  from_address: Hex
  to_address: Hex | null
  value: string | null
  nonce: Hex | null
}
const toLog = (row: LogRow): TokenLogRow => {
  const log: TokenLogRow = {
    blockHash: row.block_hash,
    logIndex: Number(row.log_index),
    blockNumber: BigInt(row.block_number),
    transactionHash: row.transaction_hash,
    event: row.event,
    from: row.from_address,
  }
  if (row.to_address !== null) log.to = row.to_address
  if (row.value !== null) log.value = BigInt(row.value)
  if (row.nonce !== null) log.nonce = row.nonce
  return log
}

export declare namespace createSqliteStore {
  type Options = StoreOptions & {
    /** Database file; its directory is created (0700) and the file is owner-only (0600). @default '.devnet-payments/payments.sqlite' */
    path?: string | undefined
  }
}

/**
 * The durable {@link PaymentStore}: a SQLite file readable only by its owner,
 * since it holds signatures that can move the payers' funds until they expire.
 */
export function createSqliteStore(options: createSqliteStore.Options = {}): PaymentStore {
  const clock = options.clock ?? Date.now
  const path = resolve(options.path ?? defaultStorePath)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // Create the file owner-only before SQLite opens it; SQLite gives its -wal
  // and -journal files the permissions of the database file.
  closeSync(openSync(path, 'a', 0o600))
  chmodSync(path, 0o600)
  const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => Database
  const db = new BetterSqlite3(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.exec(schema)

  const statements = {
    get: db.prepare('SELECT data FROM payment_records WHERE order_id = ?'),
    byNonce: db.prepare('SELECT order_id, data FROM payment_records WHERE nonce = ?'),
    all: db.prepare('SELECT data FROM payment_records ORDER BY rowid'),
    insert: db.prepare('INSERT INTO payment_records (order_id, nonce, state, data) VALUES (?, ?, ?, ?)'),
    update: db.prepare('UPDATE payment_records SET state = ?, data = ? WHERE order_id = ?'),
    putLog: db.prepare(
      `INSERT OR REPLACE INTO token_logs (block_hash, log_index, block_number, transaction_hash, event,
        from_address, to_address, value, nonce) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteLog: db.prepare('DELETE FROM token_logs WHERE block_hash = ? AND log_index = ?'),
    logsBetween: db.prepare(
      'SELECT * FROM token_logs WHERE block_number BETWEEN ? AND ? ORDER BY block_number, log_index',
    ),
    logsForNonce: db.prepare('SELECT * FROM token_logs WHERE nonce = ? ORDER BY block_number, log_index'),
    getCursor: db.prepare('SELECT block FROM cursors WHERE key = ?'),
    setCursor: db.prepare('INSERT OR REPLACE INTO cursors (key, block) VALUES (?, ?)'),
  }

  const read = (orderId: string) => {
    const row = statements.get.get(orderId) as { data: string } | undefined
    return row && decode(row.data)
  }

  const insert = db.transaction((input: Parameters<PaymentStore['insert']>[0]) => {
    const { orderId, authorization, signature } = input
    if (statements.get.get(orderId)) throw new OrderExistsError({ orderId })
    const nonce = authorization.nonce.toLowerCase()
    const existing = statements.byNonce.get(nonce) as { order_id: string } | undefined
    if (existing) throw new NonceReusedError({ orderId, nonce, existingOrderId: existing.order_id })
    const at = clock()
    const record: PaymentRecord = {
      orderId,
      authorization,
      signature,
      state: 'authorized',
      createdAt: at,
      updatedAt: at,
      history: [{ state: 'authorized', at }],
    }
    statements.insert.run(orderId, nonce, record.state, encode(record))
    return record
  })

  const transition = db.transaction(
    (orderId: string, state: Parameters<PaymentStore['transition']>[1], details: Parameters<PaymentStore['transition']>[2]) => {
      const record = read(orderId)
      if (!record) throw new RecordNotFoundError({ orderId })
      const next = applyTransition(record, state, clock(), details)
      statements.update.run(next.state, encode(next), orderId)
      return next
    },
  )

  const putLogs = db.transaction((rows: readonly TokenLogRow[]) => {
    for (const row of rows)
      statements.putLog.run(
        row.blockHash.toLowerCase(),
        row.logIndex,
        row.blockNumber,
        row.transactionHash,
        row.event,
        row.from,
        row.to ?? null,
        row.value?.toString() ?? null,
        row.nonce?.toLowerCase() ?? null,
      )
  })
  const deleteLogs = db.transaction((keys: readonly { blockHash: Hash; logIndex: number }[]) => {
    for (const key of keys) statements.deleteLog.run(key.blockHash.toLowerCase(), key.logIndex)
  })

  return {
    async insert(input) {
      return insert(structuredClone(input))
    },
    async get(orderId) {
      return read(orderId)
    },
    async getByNonce(nonce) {
      const row = statements.byNonce.get(nonce.toLowerCase()) as { data: string } | undefined
      return row && decode(row.data)
    },
    async list(filter = {}) {
      const states = filter.state === undefined ? undefined : [filter.state].flat()
      return (statements.all.all() as { data: string }[])
        .map((row) => decode(row.data))
        .filter((r) => !states || states.includes(r.state))
    },
    async transition(orderId, state, details) {
      return transition(orderId, state, details)
    },
    async putLogs(rows) {
      putLogs(rows)
    },
    async deleteLogs(keys) {
      deleteLogs(keys)
    },
    async logsBetween(fromBlock, toBlock) {
      return (statements.logsBetween.all(fromBlock, toBlock) as LogRow[]).map(toLog)
    },
    async logsForNonce(nonce) {
      return (statements.logsForNonce.all(nonce.toLowerCase()) as LogRow[]).map(toLog)
    },
    async getCursor(key) {
      const row = statements.getCursor.get(key) as { block: string } | undefined
      return row ? BigInt(row.block) : undefined
    },
    async setCursor(key, block) {
      statements.setCursor.run(key, block.toString())
    },
    async close() {
      db.close()
    },
  }
}

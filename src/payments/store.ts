import type { Hash, Hex } from 'viem'
import { NonceReusedError, OrderExistsError, RecordNotFoundError } from './errors.js'
import { createSqliteStore } from './sqlite.js'
import { type TransitionDetails, applyTransition } from './states.js'
import type {
  Authorization,
  Clock,
  PaymentRecord,
  PaymentState,
  TokenLogRow,
} from './types.js'

/**
 * The merchant backend's record store: one record per order, and the token
 * logs the indexer follows. Every method is async so that a database server
 * can implement the same interface; the SQLite and memory stores answer
 * synchronously underneath.
 */
export type PaymentStore = {
  /** Stores a new `authorized` record; refuses a second record for an order or a nonce seen before. */
  insert(input: { orderId: string; authorization: Authorization; signature: Hex }): Promise<PaymentRecord>
  get(orderId: string): Promise<PaymentRecord | undefined>
  /** Nonces are unique across the store (32 random bytes each). */
  getByNonce(nonce: Hex): Promise<PaymentRecord | undefined>
  list(filter?: { state?: PaymentState | readonly PaymentState[] | undefined }): Promise<PaymentRecord[]>
  /** Moves a record to `state` and timestamps it with the store's clock. */
  transition(orderId: string, state: PaymentState, details?: TransitionDetails): Promise<PaymentRecord>
  /** Inserts or replaces rows by `(blockHash, logIndex)`. */
  putLogs(rows: readonly TokenLogRow[]): Promise<void>
  deleteLogs(keys: readonly { blockHash: Hash; logIndex: number }[]): Promise<void>
  /** Rows with `fromBlock ≤ blockNumber ≤ toBlock`, in chain order. */
  logsBetween(fromBlock: bigint, toBlock: bigint): Promise<TokenLogRow[]>
  /** Authorization rows for one nonce, in chain order. */
  logsForNonce(nonce: Hex): Promise<TokenLogRow[]>
  getCursor(key: string): Promise<bigint | undefined>
  setCursor(key: string, block: bigint): Promise<void>
  close(): Promise<void>
}

/** Options common to every store. */
export type StoreOptions = {
  /** Timestamps transitions. @default Date.now */
  clock?: Clock | undefined
}

/** Chain order of log rows. */
export function compareLogs(a: TokenLogRow, b: TokenLogRow): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber < b.blockNumber ? -1 : 1
  return a.logIndex - b.logIndex
}

const logKey = (row: { blockHash: Hash; logIndex: number }) => `${row.blockHash.toLowerCase()}:${row.logIndex}`

/**
 * An in-memory {@link PaymentStore} for tests; same interface and rules as the
 * SQLite store. Records are copied in and out, so callers cannot mutate them.
 */
export function createMemoryStore(options: StoreOptions = {}): PaymentStore {
  const clock = options.clock ?? Date.now
  const records = new Map<string, PaymentRecord>()
  const nonces = new Map<string, string>()
  const logs = new Map<string, TokenLogRow>()
  const cursors = new Map<string, bigint>()
  const copy = <value>(value: value): value => structuredClone(value)

  return {
    async insert({ orderId, authorization, signature }) {
      if (records.has(orderId)) throw new OrderExistsError({ orderId })
      const nonce = authorization.nonce.toLowerCase()
      const existingOrderId = nonces.get(nonce)
      if (existingOrderId !== undefined)
        throw new NonceReusedError({ orderId, nonce, existingOrderId })
      const at = clock()
      const record: PaymentRecord = {
        orderId,
        authorization: copy(authorization),
        signature,
        state: 'authorized',
        createdAt: at,
        updatedAt: at,
        history: [{ state: 'authorized', at }],
      }
      records.set(orderId, record)
      nonces.set(nonce, orderId)
      return copy(record)
    },
    async get(orderId) {
      const record = records.get(orderId)
      return record && copy(record)
    },
    async getByNonce(nonce) {
      const orderId = nonces.get(nonce.toLowerCase())
      const record = orderId === undefined ? undefined : records.get(orderId)
      return record && copy(record)
    },
    async list(filter = {}) {
      const states = filter.state === undefined ? undefined : [filter.state].flat()
      return [...records.values()]
        .filter((r) => !states || states.includes(r.state))
        .map(copy)
    },
    async transition(orderId, state, details) {
      const record = records.get(orderId)
      if (!record) throw new RecordNotFoundError({ orderId })
      const next = applyTransition(record, state, clock(), details)
      records.set(orderId, next)
      return copy(next)
    },
    async putLogs(rows) {
      for (const row of rows) logs.set(logKey(row), copy(row))
    },
    async deleteLogs(keys) {
      for (const key of keys) logs.delete(logKey(key))
    },
    async logsBetween(fromBlock, toBlock) {
      return [...logs.values()]
        .filter((r) => r.blockNumber >= fromBlock && r.blockNumber <= toBlock)
        .sort(compareLogs)
        .map(copy)
    },
    async logsForNonce(nonce) {
      const wanted = nonce.toLowerCase()
      return [...logs.values()]
        .filter((r) => r.nonce?.toLowerCase() === wanted)
        .sort(compareLogs)
        .map(copy)
    },
    async getCursor(key) {
      return cursors.get(key)
    },
    async setCursor(key, block) {
      cursors.set(key, block)
    },
    async close() {},
  }
}

export declare namespace createStore {
  type Options = StoreOptions & {
    /** @default 'sqlite' (durable); 'memory' for tests */
    type?: 'sqlite' | 'memory' | undefined
    /** SQLite file. @default '.devnet-payments/payments.sqlite' */
    path?: string | undefined
  }
}

/**
 * Opens the merchant's record store: durable SQLite by default (file mode
 * 0600), or memory for tests. Both implement {@link PaymentStore}.
 */
export function createStore(options: createStore.Options = {}): PaymentStore {
  const { type = 'sqlite', ...rest } = options
  return type === 'memory' ? createMemoryStore(rest) : createSqliteStore(rest)
}

/**
 * A copy of a record safe to log: the signature (a bearer credential until
 * `validBefore`) is replaced by `'[redacted]'`.
 */
export function redactRecord(record: PaymentRecord): Omit<PaymentRecord, 'signature'> & { signature: string } {
  return { ...record, signature: '[redacted]' }
}

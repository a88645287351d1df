import type { TypedTransaction } from '../evm/engine.js'
import type { Address, Hex } from 'viem'
import { AlreadyKnownError, ReplacementUnderpricedError } from './errors.js'

/** A transaction waiting in the pool. `seq` is its arrival number, which orders the pre-confirmed layer. */
export type PooledTx = {
  tx: TypedTransaction
  hash: Hex
  from: Address
  nonce: bigint
  seq: number
}

/** geth's default price bump for a replacement: 10% on both the fee cap and the tip. */
const priceBump = 10n

const feeCap = (tx: TypedTransaction) =>
  'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
const tipCap = (tx: TypedTransaction) =>
  'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as { gasPrice: bigint }).gasPrice

export type Pool = ReturnType<typeof createPool>

/** Saved pool contents for snapshots and fixtures. */
export type PoolState = { txs: PooledTx[]; seq: number }

/**
 * Admitted transactions that are not pre-confirmed yet, per sender by nonce.
 * Validation against state happens in the node before `add`; the pool only
 * knows about ordering, duplicates and replacement.
 */
export function createPool() {
  const bySender = new Map<Address, Map<bigint, PooledTx>>()
  const byHash = new Map<Hex, PooledTx>()
  let seq = 0

  const remove = (hash: Hex) => {
    const entry = byHash.get(hash)
    if (!entry) return undefined
    byHash.delete(hash)
    const nonces = bySender.get(entry.from)
    nonces?.delete(entry.nonce)
    if (nonces?.size === 0) bySender.delete(entry.from)
    return entry
  }

  /**
   * Adds a transaction, replacing one with the same sender and nonce when
   * it pays at least 10% more on both fee fields.
   */
  const add = (entry: Omit<PooledTx, 'seq'>): { replaced: PooledTx | undefined } => {
    if (byHash.has(entry.hash)) throw new AlreadyKnownError()
    let nonces = bySender.get(entry.from)
    const existing = nonces?.get(entry.nonce)
    if (existing) {
      const bumped = (value: bigint) => value + (value * priceBump) / 100n
      if (feeCap(entry.tx) < bumped(feeCap(existing.tx)) || tipCap(entry.tx) < bumped(tipCap(existing.tx)))
        throw new ReplacementUnderpricedError()
      remove(existing.hash)
      nonces = bySender.get(entry.from)
    }
    if (!nonces) {
      nonces = new Map()
      bySender.set(entry.from, nonces)
    }
    const pooled = { ...entry, seq: seq++ }
    nonces.set(entry.nonce, pooled)
    byHash.set(entry.hash, pooled)
    return { replaced: existing }
  }

  return {
    get: (hash: Hex) => byHash.get(hash),
    size: () => byHash.size,
    senders: () => [...bySender.keys()],
    all: () => [...byHash.values()].sort((a, b) => a.seq - b.seq),
    /** The pooled transaction of `from` at `nonce`, if any. */
    at: (from: Address, nonce: bigint) => bySender.get(from)?.get(nonce),
    /** Highest pooled nonce of `from` plus one, or undefined. */
    nextNonce(from: Address, start: bigint) {
      const nonces = bySender.get(from)
      if (!nonces) return start
      let next = start
      while (nonces.has(next)) next++
      return next
    },
    add,
    remove,
    /**
     * Puts back transactions accepted earlier that the pending block no longer
     * holds (a rebuild after a cheat, a revert, a reorg): nothing accepted is
     * lost. One already pooled, or outbid by a pooled replacement, is left as
     * the pool has it; the next tick drops stale nonces with the reason.
     */
    readmit(txs: readonly { tx: TypedTransaction; hash: Hex; from: Address }[]) {
      for (const { tx, hash, from } of txs) {
        if (byHash.has(hash)) continue
        try {
          add({ tx, hash, from, nonce: tx.nonce })
        } catch (error) {
          if (!(error instanceof ReplacementUnderpricedError)) throw error
        }
      }
    },
    clear() {
      bySender.clear()
      byHash.clear()
    },
    /**
     * The executable transactions: for each sender the run of consecutive
     * nonces starting at its state nonce, all in arrival order (nonce order
     * within a sender is kept by construction).
     */
    ready(stateNonce: (from: Address) => bigint): PooledTx[] {
      const out: PooledTx[] = []
      for (const [from, nonces] of bySender) {
        let nonce = stateNonce(from)
        const run: PooledTx[] = []
        while (nonces.has(nonce)) run.push(nonces.get(nonce++)!)
        // Arrival order across senders, but a sender's txs stay in nonce order.
        const seqs = run.map((p) => p.seq).sort((a, b) => a - b)
        run.forEach((p, i) => out.push({ ...p, seq: seqs[i]! }))
      }
      return out.sort((a, b) => a.seq - b.seq)
    },
    /** Transactions whose nonce is already used by the state: they can never run. */
    stale(stateNonce: (from: Address) => bigint): PooledTx[] {
      const out: PooledTx[] = []
      for (const [from, nonces] of bySender) {
        const current = stateNonce(from)
        for (const [nonce, p] of nonces) if (nonce < current) out.push(p)
      }
      return out
    },
    save: (): PoolState => ({ txs: [...byHash.values()], seq }),
    restore(state: PoolState) {
      bySender.clear()
      byHash.clear()
      for (const p of state.txs) {
        let nonces = bySender.get(p.from)
        if (!nonces) bySender.set(p.from, (nonces = new Map()))
        nonces.set(p.nonce, p)
        byHash.set(p.hash, p)
      }
      seq = state.seq
    },
  }
}

import type { Address, Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import type { TypedTransaction } from '../evm/engine.js'
import type { CallRequest } from '../evm/execute.js'
import type { ExecutedTx } from '../evm/types.js'
import type { Chain, StoredBlock } from './chain.js'
import { InvalidArgumentError } from './errors.js'
import type { Events } from './events.js'
import type { Pool } from './pool.js'
import type { Preconf, PreconfSnapshot } from './preconf.js'

/** A transaction for a replacement block: signed, or a request a dev account fills and signs (Anvil's TransactionData). */
export type ReorgTx = { raw: TypedTransaction } | { request: CallRequest & { from: Hex } }

/** What reorgs, rollbacks and dropped pre-confirmations change: the node's writable parts, unqueued (callers run inside the node's queue). */
export type ReorgParts = {
  chain: Chain
  pool: Pool
  preconf: Preconf
  events: Events
  time: { next: bigint | undefined }
  dropped: { hash: Hex; reason: string }[]
  seal(): Promise<StoredBlock>
  rewind(number: bigint): Promise<StoredBlock[]>
  nextTimestamp(parent: StoredBlock): bigint
  rebuildPending(keep?: (tx: ExecutedTx) => boolean): Promise<{ after: PreconfSnapshot; requeued: Hex[] }>
  fillAndSign(request: CallRequest & { from: Hex }): Promise<TypedTransaction>
}

/**
 * Removes the top `depth` blocks and seals `depth` new ones at the same
 * heights with the given transactions. The pre-confirmed transactions (on the
 * old head) and the pool are set aside while the new blocks are sealed, so
 * each block holds exactly what it was given, then go back to the pool;
 * pendingLogs subscribers see the old pre-confirmed logs removed. A
 * replacement block is stamped at least one second after the block it
 * replaces, so its hash always differs, even when both are empty.
 * `removedTxs: 'requeue'` returns the replaced blocks' transactions to the
 * pool (a real reorg), `'drop'` forgets them (anvil_reorg).
 */
export async function replaceBlocks(
  parts: ReorgParts,
  depth: number,
  blocks: ReorgTx[][],
  removedTxs: 'drop' | 'requeue',
): Promise<{ removed: StoredBlock[]; added: StoredBlock[] }> {
  const { chain, pool, preconf, seal, rewind, time } = parts
  const height = chain.height()
  if (BigInt(depth) > height)
    throw new InvalidArgumentError(`Reorg depth must not exceed current chain height: current height ${height}, depth ${depth}`)
  const before = preconf.snapshot()
  const preconfirmed = [...preconf.executed()]
  const waiting = pool.all()
  for (const p of waiting) pool.remove(p.hash)
  const userNext = time.next
  const removed = await rewind(height - BigInt(depth))
  if (preconfirmed.length > 0) parts.events.emit('droppedPreconf', { before, dropped: preconfirmed.map((e) => e.hash) })
  const added: StoredBlock[] = []
  try {
    for (let i = 0; i < depth; i++) {
      for (const item of blocks[i] ?? []) {
        let tx: TypedTransaction
        if ('raw' in item) tx = item.raw
        else {
          try {
            tx = await parts.fillAndSign(item.request)
          } catch (error) {
            parts.dropped.push({ hash: '0x' as Hex, reason: `reorg transaction not signed: ${(error as Error).message}` })
            continue
          }
        }
        const from = tx.getSenderAddress().toString() as Address
        try {
          pool.add({ tx, hash: bytesToHex(tx.hash()), from, nonce: tx.nonce })
        } catch {
          // The same transaction twice: it is included once.
        }
      }
      const replaced = removed[i]!.block.header.timestamp
      const next = parts.nextTimestamp(chain.head())
      time.next = next > replaced ? next : replaced + 1n
      added.push(await seal())
      // Whatever the block could not take does not spill into the next one.
      for (const p of pool.all()) pool.remove(p.hash)
    }
  } finally {
    time.next = userNext
    if (removedTxs === 'requeue') pool.readmit(removed.flatMap((b) => b.txs))
    pool.readmit(preconfirmed)
    for (const p of waiting) {
      try {
        pool.add({ tx: p.tx, hash: p.hash, from: p.from, nonce: p.nonce })
      } catch {
        // Known again (it was also in a removed block): kept once.
      }
    }
  }
  return { removed, added }
}

/**
 * Removes the top `depth` blocks (anvil_rollback): as on Anvil their
 * transactions are gone; pre-confirmed ones were accepted and stay pending.
 */
export async function rollback(parts: ReorgParts, depth: number): Promise<void> {
  const { chain, preconf } = parts
  const height = chain.height()
  if (BigInt(depth) > height)
    throw new InvalidArgumentError(`Rollback depth must not exceed current chain height: current height ${height}, depth ${depth}`)
  const before = preconf.snapshot()
  const preconfirmed = [...preconf.executed()]
  await parts.rewind(height - BigInt(depth))
  if (preconfirmed.length > 0) parts.events.emit('droppedPreconf', { before, dropped: preconfirmed.map((e) => e.hash) })
  parts.pool.readmit(preconfirmed)
}

/**
 * Drops the pre-confirmed transactions `hashes` names (all when undefined), a
 * pre-confirmation the sealed block will not honour (Base's rare flashblock
 * reorg): the rest run again, those that depended on a dropped one go back to
 * the pool.
 */
export async function dropPreconfirmed(parts: ReorgParts, hashes: readonly Hex[] | undefined): Promise<{ dropped: Hex[]; requeued: Hex[] }> {
  const before = parts.preconf.snapshot()
  const wanted = hashes ? new Set(hashes) : undefined
  const drop = new Set(before.txs.filter((tx) => !wanted || wanted.has(tx.hash)).map((tx) => tx.hash))
  if (drop.size === 0) return { dropped: [], requeued: [] }
  const result = await parts.rebuildPending((tx) => !drop.has(tx.hash))
  const kept = new Set(result.after.txs.map((tx) => tx.hash))
  const gone = before.txs.filter((tx) => !kept.has(tx.hash)).map((tx) => tx.hash)
  for (const h of drop) parts.dropped.push({ hash: h, reason: 'pre-confirmation dropped (devnet_dropPreconfirmed)' })
  parts.events.emit('droppedPreconf', { before, dropped: gone })
  return { dropped: [...drop], requeued: result.requeued }
}

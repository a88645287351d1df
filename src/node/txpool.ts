import type { Address, Hex } from 'viem'
import type { TypedTransaction } from '../evm/engine.js'
import type { PooledTx } from './pool.js'
import { readAccount } from './stateAccess.js'
import type { Node } from './types.js'

/**
 * geth's split of the pool (txpool_status, txpool_content, ...): `pending`
 * holds the pre-confirmed transactions (not sealed yet) and each sender's
 * pooled transactions that run in order from the sender's nonce in the
 * pending (pre-confirmed) state, `queued` the ones behind a nonce gap (and
 * any already below that nonce, which the next tick drops). The nonce is
 * read from the pending snapshot, the same state eth_getTransactionCount
 * (`pending`) reads, rather than from the working VM, which a tick may be
 * changing meanwhile.
 */
export async function splitPool(node: Node): Promise<{ pending: PooledTx[]; queued: PooledTx[] }> {
  const reader = node.views.reader(node.views.resolve({ tag: 'pending' }))
  // Pre-confirmed but not sealed is still pending to a pool reader, as on Anvil with automine off.
  const pending: PooledTx[] = node.pending().txs.map((e) => ({ tx: e.tx, hash: e.hash, from: e.from as Address, nonce: e.tx.nonce, seq: -1 }))
  const queued: PooledTx[] = []
  const next = new Map<string, bigint>()
  for (const p of [...node.pool.all()].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0))) {
    let expected = next.get(p.from)
    if (expected === undefined) {
      expected = (await readAccount(reader, p.from))?.nonce ?? 0n
      next.set(p.from, expected)
    }
    if (p.nonce === expected) {
      pending.push(p)
      next.set(p.from, expected + 1n)
    } else queued.push(p)
  }
  return { pending, queued }
}

/**
 * The transactions a proposer would build on `parent` (testing_buildBlockV1
 * without a list): on the head the pre-confirmed ones first, then the
 * pooled ones ready on top of the parent's (or pending) nonces, in the order
 * a block takes them.
 */
export async function readyOn(node: Node, parent: Hex): Promise<TypedTransaction[]> {
  const onHead = parent === node.chain.head().hash
  const preconfirmed = onHead ? node.pending().txs.map((t) => t.tx) : []
  const reader = node.views.reader(node.views.resolve(onHead ? { tag: 'pending' } : { hash: parent }))
  const nonces = new Map<Address, bigint>()
  for (const p of node.pool.all())
    if (!nonces.has(p.from)) nonces.set(p.from, (await readAccount(reader, p.from))?.nonce ?? 0n)
  return [...preconfirmed, ...node.pool.ready((from) => nonces.get(from) ?? 0n).map((p) => p.tx)]
}

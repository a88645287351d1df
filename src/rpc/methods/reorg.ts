import type { Address, Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import type { StoredBlock } from '../../node/chain.js'
import type { TypedTransaction } from '../../node/engineTypes.js'
import type { Node } from '../../node/node.js'
import { ArgError, callRequest, data, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'
import { decodeRaw, fillAndSign } from './send.js'

type CallRequest = ReturnType<typeof callRequest>
/** A transaction for a replacement block: signed bytes, or a request a dev account signs (Anvil's TransactionData). */
type TxData = { raw: TypedTransaction } | { request: CallRequest }

/** A depth as Anvil takes it (a JSON number) or as a quantity. */
const depthOf = (value: unknown): number => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
  if (typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)) return Number(BigInt(value))
  throw new ArgError('depth: expected a non-negative integer')
}

const txData = (node: Node, value: unknown): TxData => {
  if (typeof value === 'string') return { raw: decodeRaw(node, data(value)) }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // As Anvil: without `from` the first dev account signs; any other sender must be a dev account.
    const request = callRequest(value)
    const from = request.from ?? (node.accounts[0]!.address.toLowerCase() as CallRequest['from'])
    if (!node.accounts.some((a) => a.address.toLowerCase() === from))
      throw new InvalidParamsError(`invalid argument 1: no signer for ${from}`)
    return { request: { ...request, from } }
  }
  throw new ArgError('transaction: expected raw signed bytes or a transaction request')
}

const rawTx = (node: Node, value: unknown): TypedTransaction => {
  if (typeof value !== 'string') throw new ArgError('transactions: expected raw signed transactions (0x…)')
  return decodeRaw(node, data(value))
}


/**
 * Removes the top `depth` blocks and seals `depth` new ones at the same
 * heights with the given transactions. Runs inside `node.write`. The
 * pre-confirmed transactions (on the old head) and the pool are set aside
 * while the new blocks are sealed, so each block holds exactly what it was
 * given, then go back to the pool; pendingLogs subscribers see the old
 * pre-confirmed logs removed. A replacement block is stamped at least one
 * second after the block it replaces, so its hash always differs, even when
 * both are empty.
 */
async function replaceBlocks(
  node: Node,
  depth: number,
  blocks: TxData[][],
  removedTxs: 'drop' | 'requeue',
): Promise<{ removed: StoredBlock[]; added: StoredBlock[] }> {
  const { chain, pool, preconf, seal, rewind } = node.internals
  const height = chain.height()
  if (BigInt(depth) > height)
    throw new InvalidParamsError(`Reorg depth must not exceed current chain height: current height ${height}, depth ${depth}`)
  const before = preconf.snapshot()
  const preconfirmed = [...preconf.executed()]
  const waiting = pool.all()
  for (const p of waiting) pool.remove(p.hash)
  const userNext = node.time.next
  const removed = await rewind(height - BigInt(depth))
  if (preconfirmed.length > 0) node.events.emit('droppedPreconf', { before, dropped: preconfirmed.map((e) => e.hash) })
  const added: StoredBlock[] = []
  try {
    for (let i = 0; i < depth; i++) {
      for (const item of blocks[i] ?? []) {
        let tx: TypedTransaction
        if ('raw' in item) tx = item.raw
        else {
          try {
            tx = await fillAndSign(node, item.request)
          } catch (error) {
            node.dropped.push({ hash: '0x' as Hex, reason: `reorg transaction not signed: ${(error as Error).message}` })
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
      const next = node.internals.nextTimestamp(chain.head())
      node.time.next = next > replaced ? next : replaced + 1n
      added.push(await seal())
      // Whatever the block could not take does not spill into the next one.
      for (const p of pool.all()) pool.remove(p.hash)
    }
  } finally {
    node.time.next = userNext
    if (removedTxs === 'requeue') node.internals.pool.readmit(removed.flatMap((b) => b.txs))
    node.internals.pool.readmit(preconfirmed)
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

const summary = (blocks: StoredBlock[]) => blocks.map((b) => ({ number: q(b.number), hash: b.hash }))

/**
 * Reorgs and rollbacks: anvil_reorg and anvil_rollback as Anvil defines them,
 * devnet_reorg, and devnet_dropPreconfirmed (a pre-confirmation that the
 * sealed block will not honour, Base's rare flashblock reorg).
 */
export const reorgMethods: MethodDef[] = [
  defineMethod({
    method: 'anvil_reorg',
    // Anvil takes `[depth, [[tx, blockIndex], …]]` or `[{ depth, txBlockPairs }]`.
    params: [(v: unknown) => v, (v: unknown) => v],
    required: 1,
    handler: async ({ node }, [first, second]) => {
      const options =
        typeof first === 'object' && first !== null && !Array.isArray(first)
          ? (first as { depth?: unknown; txBlockPairs?: unknown; tx_block_pairs?: unknown })
          : { depth: first, txBlockPairs: second }
      const depth = depthOf(options.depth)
      const pairs = options.txBlockPairs ?? options.tx_block_pairs ?? []
      if (!Array.isArray(pairs)) throw new InvalidParamsError('invalid argument 1: expected [transaction, blockIndex] pairs')
      const blocks: TxData[][] = []
      for (const pair of pairs) {
        if (!Array.isArray(pair) || pair.length !== 2) throw new InvalidParamsError('invalid argument 1: expected [transaction, blockIndex] pairs')
        const index = depthOf(pair[1])
        if (index >= depth)
          throw new InvalidParamsError(
            `Block number for reorg tx will exceed the reorged chain height. Block number ${index} must not exceed (depth-1) ${depth - 1}`,
          )
        ;(blocks[index] ??= []).push(txData(node, pair[0]))
      }
      // Anvil drops the transactions of the replaced blocks; only the given ones are mined.
      await node.write(() => replaceBlocks(node, depth, blocks, 'drop'))
      return null
    },
  }),
  defineMethod({
    method: 'anvil_rollback',
    params: [(v: unknown) => (v == null ? undefined : depthOf(v))],
    required: 0,
    handler: async ({ node }, [depthArg]) => {
      const depth = depthArg ?? 1
      await node.write(async () => {
        const { chain, preconf, rewind } = node.internals
        const height = chain.height()
        if (BigInt(depth) > height)
          throw new InvalidParamsError(`Rollback depth must not exceed current chain height: current height ${height}, depth ${depth}`)
        const before = preconf.snapshot()
        const preconfirmed = [...preconf.executed()]
        await rewind(height - BigInt(depth))
        if (preconfirmed.length > 0) node.events.emit('droppedPreconf', { before, dropped: preconfirmed.map((e) => e.hash) })
        // As on Anvil the rolled-back blocks' transactions are gone; pre-confirmed ones were accepted and stay pending.
        node.internals.pool.readmit(preconfirmed)
      })
      return null
    },
  }),
  defineMethod({
    method: 'devnet_reorg',
    params: [
      (value: unknown) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          throw new ArgError('expected { depth, transactions? }')
        return value as { depth?: unknown; transactions?: unknown }
      },
    ],
    handler: async ({ node }, [options]) => {
      const depth = depthOf(options.depth)
      if (depth < 1) throw new InvalidParamsError('invalid argument 0: depth must be at least 1')
      let blocks: TxData[][] | undefined
      if (options.transactions !== undefined) {
        if (!Array.isArray(options.transactions)) throw new InvalidParamsError('invalid argument 0: transactions: expected an array')
        const list = options.transactions as unknown[]
        // A flat list goes into the first replacement block; a list of lists gives one list per block.
        if (list.every((t) => Array.isArray(t))) {
          if (list.length > depth)
            throw new InvalidParamsError(`invalid argument 0: ${list.length} blocks of transactions for a depth of ${depth}`)
          blocks = (list as unknown[][]).map((b) => b.map((t) => ({ raw: rawTx(node, t) })))
        } else blocks = [list.map((t) => ({ raw: rawTx(node, t) }))]
      }
      // Without `transactions`, the replaced blocks' transactions go back to the pool (a real reorg returns them to
      // the mempool): the new blocks are empty and the next tick pre-confirms them again. With `transactions`
      // (even empty) only those are mined and the replaced ones are dropped, as anvil_reorg does.
      const { removed, added } = await node.write(() =>
        replaceBlocks(node, depth, blocks ?? [], blocks === undefined ? 'requeue' : 'drop'),
      )
      return { removed: summary(removed), added: summary(added) }
    },
  }),
  defineMethod({
    method: 'devnet_dropPreconfirmed',
    params: [
      (value: unknown) => {
        if (!Array.isArray(value)) throw new ArgError('expected an array of transaction hashes')
        return value.map((h) => hash(h))
      },
    ],
    required: 0,
    handler: async ({ node }, [hashes]) =>
      node.write(async () => {
        const before = node.internals.preconf.snapshot()
        const wanted = hashes ? new Set(hashes) : undefined
        const drop = new Set(before.txs.filter((tx) => !wanted || wanted.has(tx.hash)).map((tx) => tx.hash))
        if (drop.size === 0) return { dropped: [], requeued: [] }
        const result = await node.internals.rebuildPending((tx) => !drop.has(tx.hash))
        const kept = new Set(result.after.txs.map((tx) => tx.hash))
        const gone = before.txs.filter((tx) => !kept.has(tx.hash)).map((tx) => tx.hash)
        for (const h of drop) node.dropped.push({ hash: h, reason: 'pre-confirmation dropped (devnet_dropPreconfirmed)' })
        node.events.emit('droppedPreconf', { before, dropped: gone })
        return { dropped: [...drop], requeued: result.requeued }
      }),
  }),
]

import type { Hex } from 'viem'
import type { StoredBlock } from '../../node/chain.js'
import type { TypedTransaction } from '../../node/engineTypes.js'
import type { ReorgTx } from '../../node/reorg.js'
import type { Node } from '../../node/node.js'
import { ArgError, callRequest, data, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'
import { decodeRaw } from './send.js'

/** A transaction for a replacement block: signed bytes, or a request a dev account signs (Anvil's TransactionData). */
type TxData = ReorgTx

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
    const from = request.from ?? (node.accounts[0]!.address.toLowerCase() as Hex)
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
      await node.reorg(depth, blocks, 'drop')
      return null
    },
  }),
  defineMethod({
    method: 'anvil_rollback',
    params: [(v: unknown) => (v == null ? undefined : depthOf(v))],
    required: 0,
    handler: async ({ node }, [depthArg]) => {
      const depth = depthArg ?? 1
      // As on Anvil the rolled-back blocks' transactions are gone; pre-confirmed ones were accepted and stay pending.
      await node.rollback(depth)
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
      const { removed, added } = await node.reorg(depth, blocks ?? [], blocks === undefined ? 'requeue' : 'drop')
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
    handler: ({ node }, [hashes]) => node.dropPreconfirmed(hashes),
  }),
]

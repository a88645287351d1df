import type { Hex } from 'viem'
import type { StoredBlock } from '../../node/chain.js'
import type { Node } from '../../node/node.js'
import type { PreconfSnapshot } from '../../node/preconf.js'
import type { BlockId } from '../../node/views.js'
import { blockId, bool, hash, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import {
  formatBlock,
  formatPendingBlock,
  formatTx,
  q,
  receiptOfBlock,
  receiptOfPreconf,
} from '../format.js'

/** Resolves a block id to a sealed block, the pending snapshot, or null (unknown block). */
type Found = { block: StoredBlock; pending?: undefined } | { pending: PreconfSnapshot; block?: undefined } | null

function find(node: Node, id: BlockId): Found {
  if ('tag' in id && id.tag === 'pending') return { pending: node.pending() }
  try {
    const view = node.views.resolve(id)
    return view.kind === 'sealed' ? { block: view.block } : { pending: view.snapshot }
  } catch {
    return null
  }
}

/** Where a transaction is: sealed, pre-confirmed, or waiting in the pool. */
export function locateTx(node: Node, txHash: Hex) {
  const sealed = node.chain.txLocation(txHash)
  if (sealed) return { kind: 'sealed', ...sealed } as const
  const snapshot = node.pending()
  const index = snapshot.txs.findIndex((t) => t.hash === txHash)
  if (index >= 0) return { kind: 'preconf', snapshot, index } as const
  const pooled = node.pool.get(txHash)
  if (pooled) return { kind: 'pool', pooled } as const
  return undefined
}

/** The receipt of `txHash` once it is pre-confirmed or sealed, or undefined. */
export function receiptOf(node: Node, txHash: Hex) {
  const at = locateTx(node, txHash)
  if (!at || at.kind === 'pool') return undefined
  return at.kind === 'sealed' ? receiptOfBlock(at.block, at.index) : receiptOfPreconf(at.snapshot, at.index)
}

/** eth_getTransactionByHash: sealed, pre-confirmed, or pooled; null when unknown. */
export function transactionByHash(node: Node, txHash: Hex) {
  const at = locateTx(node, txHash)
  if (!at) return null
  if (at.kind === 'sealed') return txAt(node, { block: at.block }, BigInt(at.index))
  if (at.kind === 'preconf') return txAt(node, { pending: at.snapshot }, BigInt(at.index))
  return formatTx(at.pooled.tx, at.pooled.from, {
    blockHash: null,
    blockNumber: null,
    blockTimestamp: null,
    index: null,
    baseFee: undefined,
  })
}

function txAt(node: Node, found: ReturnType<typeof find>, index: bigint) {
  if (!found) return null
  if (found.block) {
    const { block } = found
    const tx = block.txs[Number(index)]
    if (!tx) return null
    const h = block.block.header
    return formatTx(tx.tx, tx.from, {
      blockHash: block.hash,
      blockNumber: h.number,
      blockTimestamp: h.timestamp,
      index: Number(index),
      baseFee: h.baseFeePerGas,
    })
  }
  const tx = found.pending.txs[Number(index)]
  if (!tx) return null
  return formatTx(tx.tx, tx.from, {
    blockHash: null,
    blockNumber: found.pending.number,
    blockTimestamp: found.pending.env.timestamp,
    index: Number(index),
    baseFee: found.pending.env.baseFeePerGas,
  })
}

/**
 * Blocks, transactions and receipts. Sealed data first; then the
 * pre-confirmed layer (receipts with a zero block hash and the pending number,
 * transactions with `blockHash: null`), then the pool (no block fields).
 */
export const blockMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getBlockByNumber',
    params: [blockId, bool],
    required: 1,
    handler: ({ node }, [id, full]) => {
      const found = find(node, id)
      if (!found) return null
      if (found.block) return formatBlock(found.block, full ?? false)
      return formatPendingBlock(found.pending, full ?? false, found.pending.env.gasLimit)
    },
  }),
  defineMethod({
    method: 'eth_getBlockByHash',
    params: [hash, bool],
    required: 1,
    handler: ({ node }, [blockHash, full]) => {
      const block = node.chain.blockByHash(blockHash)
      return block ? formatBlock(block, full ?? false) : null
    },
  }),
  defineMethod({
    method: 'eth_getBlockReceipts',
    params: [blockId],
    handler: ({ node }, [id]) => {
      const found = find(node, id)
      if (!found) return null
      if (found.block) {
        const block = found.block
        return block.txs.map((_, i) => receiptOfBlock(block, i))
      }
      const pending = found.pending
      return pending.txs.map((_, i) => receiptOfPreconf(pending, i))
    },
  }),
  defineMethod({
    method: 'eth_getBlockTransactionCountByNumber',
    params: [blockId],
    handler: ({ node }, [id]) => {
      const found = find(node, id)
      if (!found) return null
      return q(found.block ? found.block.txs.length : found.pending.txs.length)
    },
  }),
  defineMethod({
    method: 'eth_getBlockTransactionCountByHash',
    params: [hash],
    handler: ({ node }, [blockHash]) => {
      const block = node.chain.blockByHash(blockHash)
      return block ? q(block.txs.length) : null
    },
  }),
  defineMethod({
    method: 'eth_getUncleCountByBlockNumber',
    params: [blockId],
    handler: ({ node }, [id]) => (find(node, id) ? '0x0' : null),
  }),
  defineMethod({
    method: 'eth_getUncleCountByBlockHash',
    params: [hash],
    handler: ({ node }, [blockHash]) => (node.chain.blockByHash(blockHash) ? '0x0' : null),
  }),
  defineMethod({
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: [blockId, uint64],
    handler: ({ node }, [id, index]) => txAt(node, find(node, id), index),
  }),
  defineMethod({
    method: 'eth_getTransactionByBlockHashAndIndex',
    params: [hash, uint64],
    handler: ({ node }, [blockHash, index]) => {
      const block = node.chain.blockByHash(blockHash)
      return block ? txAt(node, { block }, index) : null
    },
  }),
  defineMethod({
    method: 'eth_getTransactionByHash',
    params: [hash],
    handler: ({ node }, [txHash]) => transactionByHash(node, txHash),
  }),
  defineMethod({
    method: 'eth_getTransactionReceipt',
    params: [hash],
    handler: ({ node }, [txHash]) => receiptOf(node, txHash) ?? null,
  }),
]

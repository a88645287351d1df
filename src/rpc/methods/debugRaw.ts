import { bytesToHex } from 'viem/utils'
import type { StoredBlock } from '../../node/chain.js'
import { UnknownBlockError } from '../../node/errors.js'
import type { Node } from '../../node/node.js'
import { encodeReceipt } from '../../node/receiptEncoding.js'
import type { BlockId } from '../../node/views.js'
import { blockId, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { locateTx } from './blocks.js'

/**
 * geth's raw-encoding debug methods: debug_getRawHeader, debug_getRawBlock,
 * debug_getRawReceipts (consensus encodings, hex) and debug_getRawTransaction
 * (the transaction's canonical encoding: typed envelope, no blob sidecar).
 *
 * Only sealed blocks have an encoding: `pending` is a block still being
 * built (it has no header hash or roots yet), so it is answered like an
 * unknown block, with geth's "header not found". An unknown transaction
 * gives `0x`, as geth.
 *
 * @example
 * ```json
 * >> {"method":"debug_getRawHeader","params":["0x3"]}
 * << {"result":"0xf901f7a0b487…"}
 * ```
 */
export const debugRawMethods: MethodDef[] = [
  defineMethod({
    method: 'debug_getRawHeader',
    params: [blockId],
    handler: ({ node }, [id]) => {
      return bytesToHex(sealedBlock(node, id).block.header.serialize())
    },
  }),
  defineMethod({
    method: 'debug_getRawBlock',
    params: [blockId],
    handler: ({ node }, [id]) => {
      return bytesToHex(sealedBlock(node, id).block.serialize())
    },
  }),
  defineMethod({
    method: 'debug_getRawReceipts',
    params: [blockId],
    handler: ({ node }, [id]) => {
      return sealedBlock(node, id).txs.map((tx) => bytesToHex(encodeReceipt(tx)))
    },
  }),
  defineMethod({
    method: 'debug_getRawTransaction',
    params: [hash],
    handler: ({ node }, [txHash]) => {
      // geth looks in the chain, then in the pool; the pre-confirmed layer sits between.
      const at = locateTx(node, txHash)
      if (!at) return '0x'
      const tx = at.kind === 'sealed' ? at.block.txs[at.index]!.tx : at.kind === 'preconf' ? at.snapshot.txs[at.index]!.tx : at.pooled.tx
      return bytesToHex(tx.serialize())
    },
  }),
]

/** The sealed block `id` names; throws UnknownBlockError for an unknown block or `pending`. */
function sealedBlock(node: Node, id: BlockId): StoredBlock {
  const view = node.views.resolve(id)
  if (view.kind !== 'sealed') throw new UnknownBlockError('pending')
  return view.block
}

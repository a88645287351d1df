import type { Hex } from 'viem'
import type { StoredBlock } from './chain.js'
import { TimeoutError } from './errors.js'
import type { PreconfSnapshot } from './preconf.js'
import type { Node } from './types.js'

/** Where a transaction that has a receipt is: in a sealed block, or in the pre-confirmed block. */
export type TxInclusion =
  | { kind: 'sealed'; block: StoredBlock; index: number }
  | { kind: 'preconf'; snapshot: PreconfSnapshot; index: number }

/** Where `hash` has its receipt now (sealed first, then pre-confirmed), or undefined. */
export function inclusionOf(node: Node, hash: Hex): TxInclusion | undefined {
  const sealed = node.chain.txLocation(hash)
  if (sealed) return { kind: 'sealed', ...sealed }
  const snapshot = node.pending()
  const index = snapshot.txs.findIndex((t) => t.hash === hash)
  return index >= 0 ? { kind: 'preconf', snapshot, index } : undefined
}

/**
 * Resolves with where `hash` is once it is pre-confirmed or sealed
 * (eth_sendRawTransactionSync, EIP-7966, answers as soon as it is
 * pre-confirmed, like Base); rejects with a TimeoutError after `timeoutMs`.
 */
export function waitForInclusion(node: Node, hash: Hex, timeoutMs: number): Promise<TxInclusion> {
  return new Promise((resolve, reject) => {
    const done = () => {
      const found = inclusionOf(node, hash)
      if (!found) return false
      cleanup()
      resolve(found)
      return true
    }
    const offPreconf = node.events.on('preconf', () => void done())
    const offHead = node.events.on('newHead', () => void done())
    const timer = setTimeout(() => {
      cleanup()
      reject(new TimeoutError(`The transaction was added to the mempool but wasn't processed within ${timeoutMs}ms.`, hash))
    }, timeoutMs)
    const cleanup = () => {
      offPreconf()
      offHead()
      clearTimeout(timer)
    }
    done()
  })
}

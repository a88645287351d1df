import { blobBaseFee } from './chainConfig.js'
import type { Node } from './types.js'
import type { BlockId } from './views.js'

/** eth_feeHistory's answer in native values (src/rpc encodes it). */
export type FeeHistory = {
  oldestBlock: bigint
  /** Per block, the tip at each requested percentile of gas used; absent when no percentile was asked. */
  reward: bigint[][] | undefined
  /** One more than the blocks: the fee of the block after the range. */
  baseFeePerGas: bigint[]
  gasUsedRatio: number[]
  baseFeePerBlobGas: bigint[]
  blobGasUsedRatio: number[]
}

/**
 * geth's eth_feeHistory over at most 1024 blocks ending at `newest`
 * (`pending` ends at the head), never below the chain's first block (0, or
 * a fork's fork block: the history below is the upstream's). Rewards are the
 * tips at each percentile of the block's gas used, its transactions sorted
 * by tip; the fees of the block after the range come from the sealed block
 * or from the one being built. `percentiles` are checked by the caller
 * (ascending, 0..100).
 */
export function feeHistory(node: Node, count: bigint, newest: BlockId, percentiles: readonly number[]): FeeHistory {
  const view = node.views.resolve(newest)
  const last = view.kind === 'pending' ? node.chain.height() : view.number
  const n = count > 1024n ? 1024n : count
  const floor = node.chain.genesis().number
  const first = last - n + 1n < floor ? floor : last - n + 1n
  const maxBlob = (() => {
    try {
      return node.common.getBlobGasSchedule().maxBlobGasPerBlock
    } catch {
      return 0n
    }
  })()
  const out: FeeHistory = {
    oldestBlock: first,
    reward: percentiles.length > 0 ? [] : undefined,
    baseFeePerGas: [],
    gasUsedRatio: [],
    baseFeePerBlobGas: [],
    blobGasUsedRatio: [],
  }
  for (let number = first; number <= last; number++) {
    const block = node.chain.blockByNumber(number)!
    const h = block.block.header
    out.baseFeePerGas.push(h.baseFeePerGas ?? 0n)
    out.baseFeePerBlobGas.push(h.excessBlobGas !== undefined ? h.getBlobGasPrice() : 0n)
    out.gasUsedRatio.push(Number(h.gasUsed) / Number(h.gasLimit))
    out.blobGasUsedRatio.push(maxBlob > 0n ? Number(h.blobGasUsed ?? 0n) / Number(maxBlob) : 0)
    if (out.reward) {
      const tips = block.txs
        .map((tx) => ({ tip: tx.effectiveGasPrice - (h.baseFeePerGas ?? 0n), gas: tx.gasUsed }))
        .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
      out.reward.push(
        percentiles.map((p) => {
          if (tips.length === 0) return 0n
          const threshold = (Number(h.gasUsed) * p) / 100
          let sum = 0
          for (const t of tips) {
            sum += Number(t.gas)
            if (sum >= threshold) return t.tip
          }
          return tips[tips.length - 1]!.tip
        }),
      )
    }
  }
  const next = node.chain.blockByNumber(last + 1n)?.block.header
  if (next) {
    out.baseFeePerGas.push(next.baseFeePerGas ?? 0n)
    out.baseFeePerBlobGas.push(next.excessBlobGas !== undefined ? next.getBlobGasPrice() : 0n)
  } else {
    const env = node.pending().env
    out.baseFeePerGas.push(env.baseFeePerGas ?? 0n)
    out.baseFeePerBlobGas.push(env.excessBlobGas !== undefined ? blobBaseFee(env.excessBlobGas, node.common) : 0n)
  }
  return out
}

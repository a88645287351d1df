import { keccak256 } from 'viem/utils'
import { blobBaseFee } from '../../node/chainConfig.js'
import { suggestedTip } from '../../node/fillAndSign.js'
import { blockId, data, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'

const clientVersion = `devnet/v0.1.0/node-${process.version}`


/**
 * Chain identity and fee methods: eth_chainId, net_version, web3_clientVersion,
 * eth_blockNumber, eth_syncing, eth_accounts, eth_gasPrice,
 * eth_maxPriorityFeePerGas, eth_baseFee, eth_feeHistory, eth_blobBaseFee.
 */
export const chainMethods: MethodDef[] = [
  defineMethod({ method: 'eth_chainId', params: [], handler: ({ node }) => q(node.chainId) }),
  defineMethod({ method: 'net_version', params: [], handler: ({ node }) => node.chainId.toString() }),
  defineMethod({ method: 'net_listening', params: [], handler: () => true }),
  defineMethod({ method: 'net_peerCount', params: [], handler: () => '0x0' }),
  defineMethod({ method: 'web3_clientVersion', params: [], handler: () => clientVersion }),
  defineMethod({ method: 'web3_sha3', params: [data], handler: (_, [input]) => keccak256(input) }),
  defineMethod({ method: 'eth_blockNumber', params: [], handler: ({ node }) => q(node.chain.height()) }),
  defineMethod({ method: 'eth_syncing', params: [], handler: () => false }),
  defineMethod({ method: 'eth_mining', params: [], handler: ({ node }) => node.sealer.mode().type !== 'manual' }),
  defineMethod({ method: 'eth_hashrate', params: [], handler: () => '0x0' }),
  defineMethod({ method: 'eth_coinbase', params: [], handler: ({ node }) => node.pending().env.coinbase }),
  defineMethod({
    method: 'eth_accounts',
    params: [],
    handler: ({ node }) => node.accounts.map((a) => a.address.toLowerCase()),
  }),
  defineMethod({
    method: 'eth_gasPrice',
    params: [],
    // The base fee of the block being built plus the suggested tip.
    handler: ({ node }) => q((node.pending().env.baseFeePerGas ?? 0n) + suggestedTip),
  }),
  defineMethod({
    method: 'eth_baseFee',
    params: [],
    // The base fee of the next block: the one being built on the head.
    handler: ({ node }) => q(node.pending().env.baseFeePerGas ?? 0n),
  }),
  defineMethod({ method: 'eth_maxPriorityFeePerGas', params: [], handler: () => q(suggestedTip) }),
  defineMethod({
    method: 'eth_blobBaseFee',
    params: [],
    handler: ({ node }) => {
      const env = node.pending().env
      return q(blobBaseFee(env.excessBlobGas ?? 0n, node.common))
    },
  }),
  defineMethod({
    method: 'eth_feeHistory',
    params: [uint64, blockId, (v: unknown) => v],
    required: 2,
    handler: ({ node }, [count, newest, percentiles]) => {
      if (percentiles !== undefined && !Array.isArray(percentiles))
        throw new InvalidParamsError('invalid argument 2: expected an array of percentiles')
      const ps = (percentiles ?? []) as number[]
      for (let i = 0; i < ps.length; i++) {
        if (typeof ps[i] !== 'number' || ps[i]! < 0 || ps[i]! > 100)
          throw new InvalidParamsError(`invalid reward percentile: ${ps[i]}`)
        if (i > 0 && ps[i]! < ps[i - 1]!) throw new InvalidParamsError(`invalid reward percentile: #${i - 1}:${ps[i - 1]} > #${i}:${ps[i]}`)
      }
      const view = node.views.resolve(newest)
      const last = view.kind === 'pending' ? node.chain.height() : view.number
      const n = count > 1024n ? 1024n : count
      // The chain's first block is 0, or a fork's fork block (the history below it is the upstream's).
      const floor = node.chain.genesis().number
      const first = last - n + 1n < floor ? floor : last - n + 1n
      const maxBlob = (() => {
        try {
          return node.common.getBlobGasSchedule().maxBlobGasPerBlock
        } catch {
          return 0n
        }
      })()
      const baseFees: string[] = []
      const blobFees: string[] = []
      const ratios: number[] = []
      const blobRatios: number[] = []
      const rewards: string[][] = []
      for (let number = first; number <= last; number++) {
        const block = node.chain.blockByNumber(number)!
        const h = block.block.header
        baseFees.push(q(h.baseFeePerGas ?? 0n))
        blobFees.push(q(h.excessBlobGas !== undefined ? h.getBlobGasPrice() : 0n))
        ratios.push(Number(h.gasUsed) / Number(h.gasLimit))
        blobRatios.push(maxBlob > 0n ? Number(h.blobGasUsed ?? 0n) / Number(maxBlob) : 0)
        if (ps.length > 0) {
          const tips = block.txs
            .map((tx) => ({ tip: tx.effectiveGasPrice - (h.baseFeePerGas ?? 0n), gas: tx.gasUsed }))
            .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
          rewards.push(
            ps.map((p) => {
              if (tips.length === 0) return '0x0'
              const threshold = (Number(h.gasUsed) * p) / 100
              let sum = 0
              for (const t of tips) {
                sum += Number(t.gas)
                if (sum >= threshold) return q(t.tip)
              }
              return q(tips[tips.length - 1]!.tip)
            }),
          )
        }
      }
      // The fees of the block after the range: the sealed one, or the one being built.
      const next = node.chain.blockByNumber(last + 1n)?.block.header
      if (next) {
        baseFees.push(q(next.baseFeePerGas ?? 0n))
        blobFees.push(q(next.excessBlobGas !== undefined ? next.getBlobGasPrice() : 0n))
      } else {
        const env = node.pending().env
        baseFees.push(q(env.baseFeePerGas ?? 0n))
        blobFees.push(q(env.excessBlobGas !== undefined ? blobBaseFee(env.excessBlobGas, node.common) : 0n))
      }
      return {
        oldestBlock: q(first),
        ...(ps.length > 0 ? { reward: rewards } : {}),
        baseFeePerGas: baseFees,
        gasUsedRatio: ratios,
        baseFeePerBlobGas: blobFees,
        blobGasUsedRatio: blobRatios,
      }
    },
  }),
]

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
      // The loop over the blocks is the node's (src/node/feeHistory.ts).
      const history = node.feeHistory(count, newest, ps)
      return {
        oldestBlock: q(history.oldestBlock),
        ...(history.reward ? { reward: history.reward.map((tips) => tips.map(q)) } : {}),
        baseFeePerGas: history.baseFeePerGas.map(q),
        gasUsedRatio: history.gasUsedRatio,
        baseFeePerBlobGas: history.baseFeePerBlobGas.map(q),
        blobGasUsedRatio: history.blobGasUsedRatio,
      }
    },
  }),
]

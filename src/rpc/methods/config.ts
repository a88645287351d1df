import { describeChainConfig } from '../../node/chainConfig.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { q } from '../format.js'

/**
 * # eth_config (EIP-7910), eth_capabilities
 *
 * eth_config describes the fork the chain runs at its head (`current`), the
 * next scheduled one and the last scheduled one (null when none is ahead):
 * activation time, blob schedule, chain id, EIP-2124 fork hash, and the
 * precompiles and system contracts that fork has, named as geth names them.
 * A dev chain has every fork at genesis, so `next` and `last` are null and
 * `activationTime` is 0.
 *
 * eth_capabilities tells RPC routers what history the node serves: devnet
 * keeps every block, receipt, log and state root in memory and prunes none,
 * so every resource is enabled from block 0 with no delete strategy.
 *
 * @example
 * ```json
 * >> {"method":"eth_config"}
 * << {"result":{"current":{"activationTime":0,"blobSchedule":{"target":6,"max":9,"baseFeeUpdateFraction":5007716},
 *      "chainId":"0x7a69","forkId":"0x…","precompiles":{"ECREC":"0x…01",…},"systemContracts":{…}},"next":null,"last":null}}
 * ```
 */
export const configMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_config',
    params: [],
    handler: ({ node }) => describeChainConfig(node),
  }),
  defineMethod({
    method: 'eth_capabilities',
    params: [],
    handler: ({ node }) => {
      const head = node.chain.head()
      const kept = { disabled: false, oldestBlock: '0x0' }
      return {
        head: { number: q(head.number), hash: head.hash },
        state: kept,
        tx: kept,
        logs: kept,
        receipts: kept,
        blocks: kept,
        stateproofs: kept,
      }
    },
  }),
]

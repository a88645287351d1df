import type { Hex } from 'viem'
import type { Node } from '../../node/node.js'
import { address, bool, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError, MethodNotFoundError, RpcError } from '../errors.js'
import { anyValue, looseUint, looseUint64 } from '../harnessCodecs.js'
import { harnessMethod } from './harness.js'

/** Most blocks one anvil_mine/hardhat_mine may seal: each is a real block here, not a lazy range. */
export const maxMineCount = 100_000n

function setIntervalMining(node: Node, ms: bigint) {
  if (ms > 86_400_000n) throw new InvalidParamsError(`mining interval ${ms} ms is longer than a day`)
  // Hardhat and Anvil: 0 turns interval mining off.
  return node.setIntervalMining(ms)
}

/** Removes pooled or pre-confirmed transactions that `drop` selects; returns the hashes removed. */
const dropTransactions = (node: Node, drop: (tx: { hash: Hex; from: string }) => boolean) => node.dropTransactions(drop)

/** Refuses a method that has no meaning on a devnet that never forks, with the reason. */
const unsupported = (method: string, reason: string) =>
  defineMethod({
    method,
    params: [anyValue, anyValue],
    required: 0,
    handler: () => {
      throw new RpcError(MethodNotFoundError.code, `${method} is not supported: ${reason}`)
    },
  })

/**
 * Mining control and the remaining Anvil/Hardhat test methods, so that
 * viem's createTestClient works unchanged in both modes.
 */
export const miningMethods: MethodDef[] = [
  ...harnessMethod({
    anvil: ['evm_setAutomine', 'anvil_setAutomine'],
    hardhat: ['hardhat_setAutomine'],
    params: [bool],
    handler: ({ node }, [enabled]) => node.setAutomine(enabled),
  }),
  ...['anvil_getAutomine', 'hardhat_getAutomine'].map((method) =>
    defineMethod({ method, params: [], handler: ({ node }) => node.sealer.mode().type === 'auto' }),
  ),
  // Hardhat's unit: milliseconds (viem's hardhat mode multiplies by 1000).
  ...harnessMethod({
    anvil: ['evm_setIntervalMining'],
    params: [looseUint64],
    handler: ({ node }, [ms]) => setIntervalMining(node, ms),
  }),
  // Anvil's own name takes seconds.
  ...harnessMethod({
    anvil: ['anvil_setIntervalMining'],
    params: [looseUint64],
    handler: ({ node }, [seconds]) => setIntervalMining(node, seconds * 1000n),
  }),
  ...harnessMethod({
    anvil: ['anvil_mine'],
    hardhat: ['hardhat_mine'],
    params: [looseUint64, looseUint64],
    required: 0,
    handler: ({ node }, [count = 1n, interval = 0n]) => {
      if (count > maxMineCount) throw new InvalidParamsError(`cannot mine ${count} blocks at once (at most ${maxMineCount})`)
      return node.mine(count, interval)
    },
  }),
  defineMethod({
    method: 'anvil_dropTransaction',
    params: [hash],
    handler: async ({ node }, [txHash]) => ((await dropTransactions(node, (tx) => tx.hash === txHash)).length > 0 ? txHash : null),
  }),
  defineMethod({
    method: 'hardhat_dropTransaction',
    params: [hash],
    handler: async ({ node }, [txHash]) => (await dropTransactions(node, (tx) => tx.hash === txHash)).length > 0,
  }),
  ...harnessMethod({
    anvil: ['anvil_dropAllTransactions'],
    hardhat: ['hardhat_dropAllTransactions'],
    params: [],
    handler: async ({ node }) => void (await dropTransactions(node, () => true)),
  }),
  ...harnessMethod({
    anvil: ['anvil_removePoolTransactions'],
    params: [address],
    handler: async ({ node }, [from]) => void (await dropTransactions(node, (tx) => tx.from.toLowerCase() === from)),
  }),
  // Header fields for the blocks to come; the pending block is rebuilt under them at once, keeping its timestamp.
  ...harnessMethod({
    anvil: ['evm_setBlockGasLimit'],
    params: [looseUint64],
    handler: ({ node }, [gasLimit]) => {
      if (gasLimit < 21_000n) throw new InvalidParamsError(`block gas limit ${gasLimit} is below 21000`)
      return node.pinBlockFields({ gasLimit }).then(() => true)
    },
  }),
  ...harnessMethod({
    anvil: ['anvil_setNextBlockBaseFeePerGas'],
    hardhat: ['hardhat_setNextBlockBaseFeePerGas'],
    params: [looseUint],
    handler: ({ node }, [fee]) => {
      if (!node.common.isActivatedEIP(1559)) throw new InvalidParamsError('the chain has no base fee (EIP-1559 is not active)')
      return node.pinBlockFields({ nextBaseFee: fee })
    },
  }),
  ...harnessMethod({
    anvil: ['anvil_setCoinbase'],
    hardhat: ['hardhat_setCoinbase'],
    params: [address],
    handler: ({ node }, [coinbase]) => node.pinBlockFields({ coinbase }),
  }),
  ...harnessMethod({
    anvil: ['anvil_setMinGasPrice'],
    hardhat: ['hardhat_setMinGasPrice'],
    params: [looseUint],
    handler: ({ node }) => {
      // As Anvil: a minimum gas price only means something before London; fees here follow the base fee.
      throw new InvalidParamsError(
        node.common.isActivatedEIP(1559)
          ? 'setMinGasPrice is not supported when EIP-1559 is active'
          : 'setMinGasPrice is not supported by devnet',
      )
    },
  }),
  ...harnessMethod({
    anvil: ['anvil_setLoggingEnabled'],
    hardhat: ['hardhat_setLoggingEnabled'],
    params: [bool],
    handler: ({ node }, [enabled]) => node.setLogging(enabled),
  }),
  ...harnessMethod({
    anvil: ['anvil_reset'],
    hardhat: ['hardhat_reset'],
    params: [anyValue],
    required: 0,
    handler: async ({ node, refork }, [options]) => {
      if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options)))
        throw new InvalidParamsError('invalid argument 0: want an options object')
      // viem sends `forking: { blockNumber: null }` for a plain reset; only a URL or a block number asks for a fork.
      const forking = (options as { forking?: { jsonRpcUrl?: unknown; blockNumber?: unknown } } | undefined)?.forking
      if (forking && (forking.jsonRpcUrl != null || forking.blockNumber != null)) {
        const url = forking.jsonRpcUrl ?? node.fork?.url
        if (typeof url !== 'string' || !/^https?:\/\//.test(url))
          throw new InvalidParamsError('invalid argument 0: forking.jsonRpcUrl must be an http(s) URL')
        const block = forking.blockNumber
        if (block != null && !(typeof block === 'number' && Number.isSafeInteger(block) && block >= 0) && !(typeof block === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(block)))
          throw new InvalidParamsError('invalid argument 0: forking.blockNumber must be a block number')
        if (!refork) throw new InvalidParamsError('forking is not supported by this host')
        // A new fork replaces the node: the chain, the pool and every snapshot of the old one are gone, as on Anvil.
        await refork({ url, blockNumber: block == null ? 'latest' : BigInt(block as number | string) })
        return
      }
      return node.snapshots.reset()
    },
  }),
  unsupported('anvil_setRpcUrl', 'switch the fork with anvil_reset({ forking: { jsonRpcUrl, blockNumber } })'),
  unsupported('hardhat_setRpcUrl', 'switch the fork with hardhat_reset({ forking: { jsonRpcUrl, blockNumber } })'),
]

import type { Node } from '../../node/node.js'
import { alias, defineMethod, type MethodDef } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { looseUint64 } from '../harnessCodecs.js'
import { harnessMethod } from './harness.js'

/**
 * Restarts the pending block under the timestamp the time controls now give.
 * Pre-confirmed transactions run again under it, as they do after a cheat:
 * a time move is a change the test asked for, and the block they will be
 * sealed in must carry the new time. Runs inside the write queue.
 */

/**
 * Time: evm_increaseTime, evm_setNextBlockTimestamp, anvil_setTime (evm_setTime),
 * anvil_setBlockTimestampInterval, anvil_removeBlockTimestampInterval. With
 * the virtual clock, time moves only through these and through sealing, so
 * the same calls give the same timestamps and block hashes on every run.
 */
export const timeMethods: MethodDef[] = [
  defineMethod({
    method: 'evm_increaseTime',
    params: [looseUint64],
    // Anvil and Hardhat answer with the total offset moved so far, in seconds.
    handler: async ({ node }, [seconds]) => Number(await node.increaseTime(seconds)),
  }),
  defineMethod({
    method: 'evm_setNextBlockTimestamp',
    params: [looseUint64],
    handler: async ({ node }, [timestamp]) => {
      await node.setNextBlockTimestamp(timestamp)
      return null
    },
  }),
  ...alias(
    defineMethod({
      method: 'anvil_setTime',
      params: [looseUint64],
      // Anvil answers with the seconds between the previous time and the new one.
      handler: async ({ node }, [timestamp]) => Number(await node.setTime(timestamp)),
    }),
    'evm_setTime',
  ),
  ...harnessMethod({
    anvil: ['anvil_setBlockTimestampInterval'],
    params: [looseUint64],
    handler: ({ node }, [seconds]) => setInterval(node, seconds),
  }),
  // viem's hardhat mode sends this interval in milliseconds.
  ...harnessMethod({
    anvil: [],
    hardhat: ['hardhat_setBlockTimestampInterval'],
    params: [looseUint64],
    handler: ({ node }, [ms]) => {
      if (ms % 1000n !== 0n) throw new InvalidParamsError(`interval ${ms} ms is not a whole number of seconds`)
      return setInterval(node, ms / 1000n)
    },
  }),
  ...alias(
    defineMethod({
      method: 'anvil_removeBlockTimestampInterval',
      params: [],
      handler: ({ node }) => node.setBlockTimestampInterval(undefined),
    }),
    'hardhat_removeBlockTimestampInterval',
  ),
]

function setInterval(node: Node, seconds: bigint) {
  if (seconds === 0n) throw new InvalidParamsError('block timestamp interval must be at least 1 second')
  return node.setBlockTimestampInterval(seconds).then(() => undefined)
}

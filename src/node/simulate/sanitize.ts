import { SimulateError } from '../errors.js'
import type { SimBlock, SimBlockOverrides } from './types.js'

/** geth's limits (internal/ethapi/simulate.go): the spec lets clients choose, and BLOCKHASH sees 256 blocks back. */
export const limits = { blocks: 256, callsPerBlock: 5_000, calls: 10_000 } as const

/** A block whose number and time are settled; gap fillers have no calls. */
export type SanitizedBlock = SimBlock & {
  blockOverrides: SimBlockOverrides & { number: bigint; time: bigint }
}

/** Refuses a payload over the request limits before any work is done. */
export function checkLimits(blocks: readonly SimBlock[]) {
  if (blocks.length === 0) throw new SimulateError(-32602, 'empty input')
  if (blocks.length > limits.blocks) throw new SimulateError(-38026, 'too many blocks')
  let total = 0
  for (const block of blocks) {
    if (block.calls.length > limits.callsPerBlock)
      throw new SimulateError(-38026, `too many calls in block: ${block.calls.length} > ${limits.callsPerBlock}`)
    total += block.calls.length
    if (total > limits.calls) throw new SimulateError(-38026, `too many calls: ${total} > ${limits.calls}`)
  }
}

/**
 * Settles every block's number and timestamp, as geth's `sanitizeChain`:
 * numbers default to the previous plus one and must increase (-38020), gaps
 * are filled with empty blocks, no block may sit more than 256 above the base
 * (-38026), timestamps default to the previous plus `step` and must strictly
 * increase (-38021; geth refuses equal timestamps although the schema allows
 * them). `firstTime` is the default timestamp of the first block: the base's
 * plus `step`, or on `pending` the pending block's own timestamp.
 */
export function sanitizeChain(
  base: { number: bigint; timestamp: bigint },
  blocks: readonly SimBlock[],
  options: { step: bigint; firstTime?: bigint | undefined },
): SanitizedBlock[] {
  const out: SanitizedBlock[] = []
  let prevNumber = base.number
  let prevTime = base.timestamp
  const nextTime = () => (out.length === 0 && options.firstTime !== undefined ? options.firstTime : prevTime + options.step)
  for (const block of blocks) {
    const overrides = block.blockOverrides ?? {}
    const number = overrides.number ?? prevNumber + 1n
    if (number <= prevNumber) throw new SimulateError(-38020, `block numbers must be in order: ${number} <= ${prevNumber}`)
    if (number - base.number > BigInt(limits.blocks)) throw new SimulateError(-38026, 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      const time = nextTime()
      out.push({ blockOverrides: { number: n, time }, calls: [] })
      prevTime = time
    }
    prevNumber = number
    let time = overrides.time
    if (time === undefined) time = nextTime()
    else if (time <= prevTime) throw new SimulateError(-38021, `block timestamps must be in order: ${time} <= ${prevTime}`)
    prevTime = time
    out.push({ ...block, blockOverrides: { ...overrides, number, time } })
  }
  return out
}

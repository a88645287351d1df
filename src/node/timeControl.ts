import type { Hex } from 'viem'
import type { ExecutedTx } from '../evm/types.js'
import type { Chain, StoredBlock } from './chain.js'
import type { Clock } from './clock.js'
import type { BlockOverrides, createControls } from './controls.js'
import { InvalidArgumentError } from './errors.js'
import type { Events } from './events.js'
import type { Pool } from './pool.js'
import type { Preconf, PreconfSnapshot } from './preconf.js'

/** What time control, header pins and pool drops change: the node's writable parts, unqueued (callers run inside the queue). */
export type ControlParts = {
  chain: Chain
  pool: Pool
  preconf: Preconf
  events: Events
  clock: Clock
  controls: ReturnType<typeof createControls>
  time: { next: bigint | undefined; interval: bigint | undefined }
  seal(): Promise<StoredBlock>
  nextTimestamp(parent: StoredBlock): bigint
  rebuildPending(keep?: (tx: ExecutedTx) => boolean, retime?: bigint): Promise<{ before: PreconfSnapshot }>
}

/** Rebuilds the pending block at the timestamp the next block would now get (after a time change). */
export const retimePending = (parts: ControlParts) => parts.rebuildPending(undefined, parts.nextTimestamp(parts.chain.head()))

/** Moves the clock forward (evm_increaseTime); returns the total offset moved so far, in seconds. */
export async function increaseTime(parts: ControlParts, seconds: bigint): Promise<bigint> {
  parts.clock.increase(seconds)
  parts.controls.timeOffset += seconds
  await retimePending(parts)
  return parts.controls.timeOffset
}

/** Sets the clock (anvil_setTime); returns the seconds between the previous time and the new one. */
export async function setTime(parts: ControlParts, timestamp: bigint): Promise<bigint> {
  const before = parts.clock.now()
  parts.clock.set(timestamp)
  parts.controls.timeOffset += timestamp - before
  await retimePending(parts)
  return timestamp - before
}

/** Pins the next block's timestamp (evm_setNextBlockTimestamp): not below the head's. */
export async function setNextBlockTimestamp(parts: ControlParts, timestamp: bigint): Promise<void> {
  const head = parts.chain.head().block.header.timestamp
  if (timestamp < head) throw new InvalidArgumentError(`timestamp ${timestamp} is lower than the previous block's timestamp ${head}`)
  parts.time.next = timestamp
  await retimePending(parts)
}

/** Sets (seconds) or removes (undefined) the fixed interval between block timestamps; returns whether one was set before. */
export async function setBlockTimestampInterval(parts: ControlParts, seconds: bigint | undefined): Promise<boolean> {
  if (seconds === 0n) throw new InvalidArgumentError('block timestamp interval must be at least 1 second')
  const had = parts.time.interval !== undefined
  parts.time.interval = seconds
  await retimePending(parts)
  return had
}

/** Seals `blocks` blocks, the first at `timestamp` when given (evm_mine): the pending block is re-timed first. */
export async function mineAt(parts: ControlParts, options: { timestamp?: bigint | undefined; blocks?: bigint | undefined }): Promise<void> {
  const { timestamp, blocks = 1n } = options
  for (let i = 0n; i < blocks; i++) {
    if (i === 0n && timestamp !== undefined) {
      parts.time.next = timestamp
      await retimePending(parts)
    }
    await parts.seal()
  }
}

/** Pins header fields of the blocks to come; the pending block is rebuilt under them at once, keeping its timestamp. */
export async function pinBlockFields(parts: ControlParts, fields: Partial<BlockOverrides>): Promise<void> {
  Object.assign(parts.controls.block, fields)
  await parts.rebuildPending()
}

/** Removes pooled or pre-confirmed transactions that `drop` selects; returns the hashes removed. */
export async function dropTransactions(parts: ControlParts, drop: (tx: { hash: Hex; from: string }) => boolean): Promise<Hex[]> {
  const { pool, preconf } = parts
  const removed: Hex[] = []
  for (const pooled of pool.all()) if (drop(pooled) && pool.remove(pooled.hash)) removed.push(pooled.hash)
  const preconfirmed = preconf.executed().filter(drop).map((tx) => tx.hash)
  if (preconfirmed.length > 0) {
    const { before } = await parts.rebuildPending((tx) => !drop(tx))
    // Later nonces of a dropped sender go back to the pool with a gap; they stay there, as on Anvil.
    removed.push(...preconfirmed)
    parts.events.emit('droppedPreconf', { before, dropped: preconfirmed })
  }
  return removed
}

import type { MiningConfig } from '../config/schema.js'
import type { ExecutedTx } from '../evm/types.js'
import type { Chain, StoredBlock } from './chain.js'
import type { Clock, ClockState } from './clock.js'
import type { Controls, ControlsState } from './controls.js'
import type { Events } from './events.js'
import type { Pool, PoolState } from './pool.js'
import type { Preconf } from './preconf.js'

/** A component with state of its own that snapshots must cover (the filter store, ...). */
export type SnapshotParticipant = { save(): unknown; restore(saved: unknown): void }

/**
 * Everything a revert puts back. Nothing here grows with the chain or the
 * state: the head is one object (its stateRoot stays readable because the
 * trie DB is never pruned), its ancestors are reached through the chain's
 * parent links, and the pool and pre-confirmed layer are small by nature.
 */
type Saved = {
  head: StoredBlock
  pool: PoolState
  preconf: { timestamp: bigint; txs: readonly ExecutedTx[]; published: ReturnType<Preconf['snapshot']> }
  clock: ClockState
  time: { next: bigint | undefined; interval: bigint | undefined }
  mining: MiningConfig
  controls: ControlsState
  participants: Map<SnapshotParticipant, unknown>
}

/**
 * evm_snapshot / evm_revert with Hardhat's and Anvil's semantics: ids count
 * up, reverting to an id deletes it and every later one, an unknown id
 * answers false. Both run inside the node's write queue (`write`), so a
 * snapshot never sees half a seal.
 */
export function createSnapshots(deps: {
  chain: Chain
  pool: Pool
  preconf: Preconf
  clock: Clock
  time: { next: bigint | undefined; interval: bigint | undefined }
  controls: Controls
  sealer: { mode(): MiningConfig; setMode(mode: MiningConfig): void }
  events: Events
  write: <T>(fn: () => Promise<T>) => Promise<T>
}) {
  const { chain, pool, preconf, clock, time, controls, sealer, events } = deps
  const participants = new Set<SnapshotParticipant>()
  const saved = new Map<bigint, Saved>()
  let nextId = 1n

  const capture = (): Saved => ({
    head: chain.head(),
    pool: pool.save(),
    preconf: { timestamp: preconf.env().timestamp, txs: preconf.snapshot().txs, published: preconf.snapshot() },
    clock: clock.save(),
    time: { next: time.next, interval: time.interval },
    mining: sealer.mode(),
    controls: controls.save(),
    participants: new Map([...participants].map((p) => [p, p.save()])),
  })

  /**
   * Puts the chain back to exactly `head` and its ancestors as they were:
   * walks the parent links from `head` down to the first block the chain
   * still holds (the same object, so a reorged block or a head whose state a
   * cheat replaced does not count as shared), cuts the chain there and
   * re-attaches the walked blocks. Costs the blocks that differ, nothing more.
   */
  function restoreChain(head: StoredBlock) {
    const path: StoredBlock[] = []
    let block: StoredBlock | undefined = head
    while (block && chain.blockByNumber(block.number) !== block) {
      path.push(block)
      block = chain.parentOf(block)
    }
    // Walking past genesis means the genesis object itself differs (a cheat on a fresh chain): replace it too.
    // The first block is 0, or on a fork the fork block.
    const first = chain.genesis().number
    if (!block && path[path.length - 1]!.number !== first) throw new Error('snapshot head is not connected to the chain')
    const removed = chain.truncate(block ? block.number : first - 1n)
    for (const b of path.reverse()) chain.reattach(b)
    // A block that comes back with the same hash (only its cheat state differed) did not leave the chain.
    const back = new Set(path.map((b) => b.hash))
    return removed.filter((b) => !back.has(b.hash))
  }

  async function restore(s: Saved) {
    const removed = restoreChain(s.head)
    clock.restore(s.clock)
    time.next = s.time.next
    time.interval = s.time.interval
    controls.restore(s.controls)
    if (JSON.stringify(sealer.mode()) !== JSON.stringify(s.mining)) sealer.setMode(s.mining)
    pool.restore(s.pool)
    // The pre-confirmed transactions run again on the restored head under their
    // timestamp: same state, same env, so the same receipts (I3 holds across a revert).
    // Unless the pending block is still the one the snapshot saw (built on the
    // same head object, and the layer published nothing since: every start and
    // every tick that changes it publishes a new snapshot object): a revert
    // after reads only (a test's afterEach) then skips rebuilding it, most of a
    // revert's cost.
    const unchanged = preconf.parent() === s.head && preconf.snapshot() === s.preconf.published
    if (!unchanged) {
      const { rejected } = await preconf.restart(chain.head(), s.preconf.timestamp, s.preconf.txs)
      pool.readmit(rejected.map((r) => r.pooled))
    }
    if (removed.length > 0) events.emit('removedBlocks', removed)
    // Last: a participant (the filters) is put back as it was at the snapshot,
    // without the removals the emit above just told the live listeners about.
    for (const [participant, value] of s.participants) if (participants.has(participant)) participant.restore(value)
  }

  /** The node as it was when the node was created (anvil_reset without a fork). */
  const initial = capture()

  return {
    /** Lets a component with its own state join every snapshot taken from now on. Returns an unregister function. */
    register(participant: SnapshotParticipant) {
      participants.add(participant)
      return () => void participants.delete(participant)
    },
    /** Takes a snapshot; resolves with its id. */
    take: () =>
      deps.write(async () => {
        const id = nextId++
        saved.set(id, capture())
        return id
      }),
    /** Reverts to snapshot `id`, deleting it and every later one; false for an unknown id. */
    revert: (id: bigint) =>
      deps.write(async () => {
        const s = saved.get(id)
        if (!s) return false
        for (const key of saved.keys()) if (key >= id) saved.delete(key)
        await restore(s)
        return true
      }),
    /** Back to the node as it was created; every snapshot is dropped. */
    reset: () =>
      deps.write(async () => {
        saved.clear()
        await restore(initial)
      }),
    /**
     * Drops every snapshot without reverting (ids keep counting up, so an old
     * id never names a later snapshot). For a swap that replaces the whole
     * chain (a fixture load): a snapshot of the old chain must not bring it
     * back. Not queued: call it from inside `node.write`.
     */
    clear: () => void saved.clear(),
    /** Ids of the snapshots that can still be reverted to. */
    ids: () => [...saved.keys()],
  }
}

export type Snapshots = ReturnType<typeof createSnapshots>

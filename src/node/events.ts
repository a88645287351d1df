import type { Hex } from 'viem'
import type { StoredBlock } from './chain.js'
import type { PreconfSnapshot } from './preconf.js'

/** What the node announces; transports subscribe, the node never calls them. */
export type NodeEvents = {
  /** A block was sealed and is the new head. */
  newHead: StoredBlock
  /** A tick published a new pre-confirmation (`added` are its new transaction hashes). */
  preconf: PreconfSnapshot
  /** A transaction entered the pool. */
  pendingTx: Hex
  /** Blocks left the canonical chain (reorg, rollback, revert), oldest first. */
  removedBlocks: StoredBlock[]
  /** Pre-confirmed transactions were dropped: their snapshot before the drop, and the hashes dropped. */
  droppedPreconf: { before: PreconfSnapshot; dropped: Hex[] }
}

type Listener<T> = (value: T) => void

/** A small typed emitter; a throwing listener is logged and never breaks the node. */
export function createEvents() {
  const listeners = new Map<keyof NodeEvents, Set<Listener<never>>>()
  return {
    on<K extends keyof NodeEvents>(name: K, fn: Listener<NodeEvents[K]>) {
      let set = listeners.get(name)
      if (!set) listeners.set(name, (set = new Set()))
      set.add(fn as Listener<never>)
      return () => set!.delete(fn as Listener<never>)
    },
    /** How many listeners an event has (subscriptions and filters register here). */
    listenerCount: (name: keyof NodeEvents) => listeners.get(name)?.size ?? 0,
    emit<K extends keyof NodeEvents>(name: K, value: NodeEvents[K]) {
      for (const fn of listeners.get(name) ?? []) {
        try {
          ;(fn as Listener<NodeEvents[K]>)(value)
        } catch (error) {
          console.error(`devnet: ${name} listener failed:`, error)
        }
      }
    },
  }
}

export type Events = ReturnType<typeof createEvents>

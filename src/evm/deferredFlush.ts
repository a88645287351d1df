import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { patchActive } from './patches/registry.js'

/**
 * Makes `state` write its caches into the trie only when a root is asked for
 * (getStateRoot, setStateRoot, a revert to depth 0), not at every commit back
 * to depth 0.
 *
 * ethereumjs flushes the caches into the trie whenever the last checkpoint is
 * committed: with no block-level checkpoint (the pre-confirmed layer keeps
 * none, so every tick ends at a readable root) that is once per transaction,
 * and each flush re-hashes the trie path of every account and slot the
 * transaction touched. A block's transactions share accounts (the fee
 * recipient, a token contract, its storage trie root, a sender sending
 * twice), so one flush per root writes each of them once. Reads go through
 * the caches first, so deferring the write changes nothing a reader of this
 * state sees, and the root is computed from the same values.
 *
 * Only for a state whose trie nothing else reads directly between roots:
 * other copies read the shared database at a root this state returned, which
 * getStateRoot flushed first.
 */
export function deferFlushToRoot(state: MerkleStateManager): void {
  if (!patchActive('deferred-flush')) return
  const s = state as unknown as {
    _trie: { commit(): Promise<void> }
    _caches?: { commit(): void }
    _checkpointCount: number
    originalStorageCache: { clear(): void }
    commit(): Promise<void>
  }
  s.commit = async function commit() {
    await s._trie.commit()
    s._caches?.commit()
    s._checkpointCount--
    // The originals EIP-2200 compares against are per transaction: cleared as ethereumjs does.
    if (s._checkpointCount === 0) s.originalStorageCache.clear()
  }
}

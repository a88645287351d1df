import { CheckpointDB, MerklePatriciaTrie } from '@ethereumjs/mpt'

/*
 * A trie's commit and revert of a nested checkpoint, without the lock and
 * the awaits when nothing can wait on them.
 *
 * Every EVM call checkpoints the state twice (runTx, then the message) and
 * commits or reverts both: MerkleStateManager.commit awaits the account
 * trie's commit, which takes the trie's lock (an async acquire), awaits the
 * database's commit (for a nested checkpoint: folding its key/value map into
 * the one below, synchronous work in an async function) and awaits
 * persistRoot (a no-op unless the trie persists its root), then releases the
 * lock. A call of eth_simulateV1 or eth_call never closes the outermost
 * checkpoint (the request's own, reverted at its end), so each of its
 * commits is this bookkeeping: a handful of promises and microtask turns
 * for two map operations.
 *
 * When the lock is free (nobody holds it, nobody waits), the trie persists no
 * root, does not debug-log, and its database is a CheckpointDB whose commit and
 * revert are the library's, a nested commit (one that leaves a checkpoint
 * open) or any revert does the same work at once: the database's checkpoint
 * is popped and folded into the one below (commit) or its root restored
 * (revert), in the library's order. The caller still gets a promise (settled);
 * anything else, the last commit's write to the database included, goes to
 * the library's method.
 */

type TrieInternals = {
  _db: CheckpointDB
  _lock: { permits: number; promiseResolverQueue: unknown[] }
  _opts: { useRootPersistence?: boolean }
  DEBUG: boolean
  root(value?: Uint8Array | null): Uint8Array
}
type Checkpoint = { keyValueMap: Map<string, Uint8Array | undefined>; root: Uint8Array }

const trie = MerklePatriciaTrie.prototype as unknown as {
  commit(): Promise<void>
  revert(): Promise<void>
  __devnetTrieCheckpoints?: boolean
}
const db = CheckpointDB.prototype as unknown as { commit: unknown; revert: unknown }
const settled = Promise.resolve()

/** Whether `t`'s checkpoint can be closed at once: nothing waits on its lock and closing writes nothing but maps. */
function quiet(t: TrieInternals): boolean {
  const lock = t._lock
  const d = t._db as unknown as { commit: unknown; revert: unknown; checkpoints?: Checkpoint[] }
  return (
    !t.DEBUG &&
    t._opts.useRootPersistence !== true &&
    lock.permits === 1 &&
    lock.promiseResolverQueue.length === 0 &&
    d.commit === db.commit &&
    d.revert === db.revert &&
    Array.isArray(d.checkpoints)
  )
}

/** The library's commit and revert, as they were before the patch (for its test). */
export const libraryTrieCheckpoints: { commit?: () => Promise<void>; revert?: () => Promise<void> } = {}

export function applyTrieCheckpoints() {
  if (trie.__devnetTrieCheckpoints) return
  trie.__devnetTrieCheckpoints = true
  const commit = trie.commit
  const revert = trie.revert
  libraryTrieCheckpoints.commit = commit
  libraryTrieCheckpoints.revert = revert
  trie.commit = function (this: TrieInternals) {
    const checkpoints = (this._db as unknown as { checkpoints: Checkpoint[] }).checkpoints
    // Only a nested commit: the last one writes the batch to the database (the library's path).
    if (!quiet(this) || checkpoints.length < 2) return commit.call(this)
    const { keyValueMap } = checkpoints.pop()!
    if (keyValueMap.size > 0) {
      const below = checkpoints[checkpoints.length - 1]!.keyValueMap
      for (const [key, value] of keyValueMap) below.set(key, value)
    }
    return settled
  }
  trie.revert = function (this: TrieInternals) {
    const checkpoints = (this._db as unknown as { checkpoints: Checkpoint[] }).checkpoints
    if (!quiet(this) || checkpoints.length < 1) return revert.call(this)
    this.root(checkpoints.pop()!.root)
    return settled
  }
}

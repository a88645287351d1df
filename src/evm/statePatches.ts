import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { type Address, unpadBytes } from '@ethereumjs/util'

/*
 * Fixes to @ethereumjs/statemanager 10.1.3 that every state in the process
 * needs, applied by the patch registry (patches/registry.ts) when the engine is installed.
 *
 * `putStorage` means to write to the storage cache and fall back to the trie
 * only without one (`cache.put(...) ?? writeTrie(...)`), but the cache's
 * `put` returns nothing, so every SSTORE is also written through to the
 * storage trie at once: trie hashing and database writes per slot, the most
 * expensive step of executing a transaction that touches storage (the token,
 * the system contracts at every block start). With the cache alone, reads go
 * through it, checkpoints revert it, and `flush()` (run by `getStateRoot`)
 * writes it into the trie, which is the path the library designed.
 */
const prototype = MerkleStateManager.prototype as unknown as {
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>
  _caches?: { storage?: { put(address: Address, key: Uint8Array, value: Uint8Array): void } }
  __devnetPatched?: boolean
}

/** MerkleStateManager.prototype.putStorage once the patch is applied (undefined before): what storeCached stands in for. */
export let patchedPutStorage: unknown

export function applyPutStorage() {
  if (prototype.__devnetPatched) return
  const original = prototype.putStorage
  patchedPutStorage = prototype.putStorage = async function (this: typeof prototype & MerkleStateManager, address, key, value) {
    const cache = this._caches?.storage
    if (cache === undefined) return original.call(this, address, key, value)
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if ((await this.getAccount(address)) === undefined) throw new Error('putStorage() called on non-existing account')
    cache.put(address, key, RLP.encode(unpadBytes(value)))
  }
  prototype.__devnetPatched = true
}

import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { type VM, createVM } from '@ethereumjs/vm'
import { KeyedAccountCache, KeyedCodeCache, KeyedStorageCache } from './hexKeys.js'
import { installEngine, patchActive } from './patches/registry.js'
import { packNodeStore } from './trieStorage.js'
import { ViewStateManager } from './viewState.js'

/** Where BLOCKHASH looks up earlier blocks: the node's chain, or a simulation's. */
export type BlockSource = {
  blockByNumber(number: bigint): { block: Block } | undefined
  /** On a fork: the hash of a block below the fork block, from the upstream. */
  remoteBlockHash?: ((number: bigint) => Promise<Uint8Array>) | undefined
}

/**
 * The few methods of ethereumjs's blockchain that the EVM uses (BLOCKHASH) and
 * that the VM calls when copying itself. Devnet keeps its chain itself, so the
 * VM gets this window onto it instead of a second copy.
 */
export function blockchainOf(source: BlockSource) {
  const stub = {
    async getBlock(id: number | bigint | Uint8Array) {
      if (id instanceof Uint8Array) throw new Error('block lookup by hash is not supported here')
      const found = source.blockByNumber(BigInt(id))
      if (!found && source.remoteBlockHash) {
        // BLOCKHASH only asks for hash(): a block below a fork point is known by its hash alone.
        const hash = await source.remoteBlockHash(BigInt(id))
        return { hash: () => hash } as unknown as Block
      }
      if (!found) throw new Error(`block ${id} not found`)
      return found.block
    },
    async putBlock() {},
    shallowCopy: () => stub,
  }
  return stub
}

/**
 * Fresh read-through caches: a view's state is immutable, so caching every read is safe. With the engine's
 * patches, the caches key their entries by flat strings in Maps (hexKeys.ts).
 */
export function createCaches(): Caches {
  return keyed(new Caches({ account: { size: 50_000 }, code: { size: 5_000 }, storage: { size: 50_000 } }))
}

/** `caches` (empty) with the keyed caches of hexKeys.ts in place of the library's, at the same settings. */
function keyed(caches: Caches): Caches {
  if (!patchActive('keyed-caches')) return caches
  if (caches.account) caches.account = new KeyedAccountCache(caches.settings.account)
  if (caches.code) caches.code = new KeyedCodeCache(caches.settings.code)
  if (caches.storage) caches.storage = new KeyedStorageCache(caches.settings.storage)
  return caches
}

/**
 * `base.shallowCopy(false)`: the library's copy makes its caches afresh as its own classes, so without this the
 * pending block's VM (preconf.ts), which runs every transaction of auto mining, keyed its storage and account
 * reads by byte-at-a-time hex in a red-black tree: on a fork, 100 token transfers allocated ~15 MB of key strings
 * there (a sixth of their allocation, bench/forkRowAB.ts with a heap sampling profile). With the keyed caches:
 * 22 -> 19 scavenges, and the row's CPU 805 -> 755 ms (main thread 584 -> 529; 6 alternated pairs, medians).
 */
function copyState(base: MerkleStateManager): MerkleStateManager {
  const copy = base.shallowCopy(false)
  const internals = copy as unknown as { _caches?: Caches }
  if (internals._caches) internals._caches = keyed(internals._caches)
  return copy
}

/**
 * A VM over the state at `root`, sharing the trie database of `base` (trie nodes
 * are never deleted, so every root the chain ever had stays readable) but with
 * its own caches and checkpoints: what runs here never touches another copy.
 */
export async function createVmAt(
  common: Common,
  base: MerkleStateManager,
  root: Uint8Array,
  source: BlockSource,
  /** A warm read-only state manager at `root` for a VM whose every run is reverted (see ViewStateManager). */
  readThrough?: MerkleStateManager,
): Promise<VM> {
  installEngine()
  const stateManager = readThrough && patchActive('view-state') ? viewStateAt(base, readThrough) : copyState(base)
  await stateManager.setStateRoot(root, true)
  return createVM({
    common: common.copy(),
    stateManager,
    blockchain: blockchainOf(source) as never,
  })
}

/** A copy of `base` (same trie database, own caches) that reads through `reader`. */
function viewStateAt(base: MerkleStateManager, reader: MerkleStateManager) {
  const internals = base as unknown as {
    _trie: { shallowCopy(includeCheckpoints: boolean, opts: object): never; _opts: { cacheSize: number } }
    _prefixCodeHashes: boolean
    _prefixStorageTrieKeys: boolean
  }
  return new ViewStateManager(reader, {
    common: base.common.copy(),
    trie: internals._trie.shallowCopy(false, { cacheSize: internals._trie._opts.cacheSize }),
    prefixCodeHashes: internals._prefixCodeHashes,
    prefixStorageTrieKeys: internals._prefixStorageTrieKeys,
    caches: createCaches(),
  })
}

/** A new, empty state database for a chain. */
export function createStateManager(common: Common) {
  installEngine()
  const state = new MerkleStateManager({ common, caches: createCaches() })
  if (patchActive('packed-node-store')) packNodeStore(state)
  return state
}

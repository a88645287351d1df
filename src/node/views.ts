import type { Common } from '../evm/engine.js'
import type { MerkleStateManager } from '../evm/engine.js'
import type { VM } from '../evm/engine.js'
import type { Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import type { BlockEnv } from '../evm/execute.js'
import { createCaches, createVmAt } from '../evm/engine.js'
import { createCallMemo } from './callMemo.js'
import type { ChainReader, StoredBlock } from './chain.js'
import { UnknownBlockError } from './errors.js'
import type { PreconfSnapshot } from './preconf.js'

/** A block parameter as every method takes it: a tag, a number, or an EIP-1898 hash. */
export type BlockId =
  | { tag: 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest' }
  | { number: bigint }
  | { hash: Hex; requireCanonical?: boolean | undefined }

/**
 * A resolved block parameter: the block env a call runs in and the state root
 * its reads use. Resolved once per request, so every read of that request
 * sees the same block even if a seal happens meanwhile.
 */
export type View =
  | { kind: 'sealed'; number: bigint; env: BlockEnv; root: Uint8Array; block: StoredBlock }
  | { kind: 'pending'; number: bigint; env: BlockEnv; root: Uint8Array; snapshot: PreconfSnapshot }

const zero32 = `0x${'00'.repeat(32)}` as Hex

const envs = new WeakMap<StoredBlock, BlockEnv>()

/** The block env of a sealed block: calls at block N run in N's own header. One object per block, so what is built from it can be cached on it. */
export function envOfBlock(block: StoredBlock): BlockEnv {
  let env = envs.get(block)
  if (!env) envs.set(block, (env = computeEnv(block)))
  return env
}

function computeEnv(block: StoredBlock): BlockEnv {
  const h = block.block.header
  return {
    number: h.number,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    baseFeePerGas: h.baseFeePerGas,
    coinbase: h.coinbase.toString() as Hex,
    prevRandao: bytesToHex(h.mixHash),
    excessBlobGas: h.excessBlobGas,
    parentHash: bytesToHex(h.parentHash),
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ? bytesToHex(h.parentBeaconBlockRoot) : zero32,
  }
}

type Entry = { reader: MerkleStateManager; vm: Promise<VM> | undefined; lock: Promise<unknown> }

/**
 * Resolves block ids and hands out isolated state at a view's root: a
 * read-only state manager for plain reads (no checkpoints ever, so concurrent
 * reads are safe) and a VM for calls, one call at a time per root. Both are
 * cached by root, so repeated reads at `latest` stay warm.
 */
export function createViews(args: {
  common: Common
  state: MerkleStateManager
  chain: ChainReader
  pending: () => PreconfSnapshot
}) {
  const cache = new Map<string, Entry>()
  const maxEntries = 16
  const memo = createCallMemo()

  const entry = (root: Uint8Array): Entry => {
    const key = bytesToHex(root)
    let found = cache.get(key)
    if (found) {
      // Move to the end: the map's order is its recency.
      cache.delete(key)
      cache.set(key, found)
      return found
    }
    const reader = args.state.shallowCopy(false)
    // setStateRoot is async only for its existence check; the trie root itself is set synchronously below.
    ;(reader as unknown as { _trie: { root(r: Uint8Array): void } })._trie.root(root)
    ;(reader as unknown as { _caches: unknown })._caches = createCaches()
    found = { reader, vm: undefined, lock: Promise.resolve() }
    cache.set(key, found)
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!)
    return found
  }

  const sealed = (block: StoredBlock): View => ({
    kind: 'sealed',
    number: block.number,
    env: envOfBlock(block),
    root: block.stateRoot,
    block,
  })

  return {
    resolve(id: BlockId): View {
      const { chain } = args
      if ('tag' in id) {
        switch (id.tag) {
          case 'pending': {
            const snapshot = args.pending()
            return { kind: 'pending', number: snapshot.number, env: snapshot.env, root: snapshot.root, snapshot }
          }
          case 'earliest':
            return sealed(chain.genesis())
          case 'safe':
            return sealed(chain.safe())
          case 'finalized':
            return sealed(chain.finalized())
          default:
            return sealed(chain.head())
        }
      }
      if ('number' in id) {
        const block = chain.blockByNumber(id.number)
        if (!block) throw new UnknownBlockError(`0x${id.number.toString(16)}`)
        return sealed(block)
      }
      const block = chain.blockByHash(id.hash)
      if (!block) throw new UnknownBlockError(id.hash)
      return sealed(block)
    },
    /** Read-only state at the view's root. */
    reader: (view: View) => entry(view.root).reader,
    /** Runs `fn` with the VM at the view's root; calls on one root run one at a time. */
    async withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T> {
      const e = entry(view.root)
      e.vm ??= createVmAt(args.common, args.state, view.root, args.chain, e.reader)
      const run = e.lock.then(async () => fn(await e.vm!))
      // The lock waits for the run, not for its result: holding that would keep the last call's whole EVM result alive.
      e.lock = run.then(
        () => {},
        () => {},
      )
      return run
    },
    /** Results of eth_call per view (callMemo.ts): the same call at the same view runs once. */
    memo,
    clear: () => {
      cache.clear()
      memo.clear()
    },
  }
}

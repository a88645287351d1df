import type { Hex } from 'viem'
import type { CallRequest } from '../evm/execute.js'
import { createSeenKeys } from './seenKeys.js'
import type { View } from './views.js'

/** What eth_call answers from one run: the return data, or the revert / VM error it throws. */
export type MemoizedCall = { returnData: Hex; reverted: boolean; error: string | undefined }

/** Bounds of the memo: entries, bytes held in all (keys and return data), and the largest key or return data kept. */
export type CallMemoLimits = { entries: number; bytes: number; entryBytes: number }

const defaultLimits: CallMemoLimits = { entries: 4096, bytes: 8 << 20, entryBytes: 64 << 10 }

/**
 * The key of a call: every field of the decoded request, in a fixed order, so
 * two requests that decode alike share an entry whatever their spelling.
 * Lists (access list, authorizations, blob hashes) are rare: JSON, bigints as
 * decimal.
 */
export function callKey(r: CallRequest): string {
  let key = `${r.from ?? ''}|${r.to === null ? 'null' : (r.to ?? '')}|${r.data ?? ''}|${r.gas ?? ''}|${r.value ?? ''}|${r.gasPrice ?? ''}|${r.maxFeePerGas ?? ''}|${r.maxPriorityFeePerGas ?? ''}|${r.maxFeePerBlobGas ?? ''}|${r.nonce ?? ''}|${r.type ?? ''}|${r.chainId ?? ''}`
  if (r.accessList || r.authorizationList || r.blobVersionedHashes)
    key += `|${JSON.stringify([r.accessList, r.authorizationList, r.blobVersionedHashes], (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`
  return key
}

/**
 * Results of eth_call at one view, kept for the same call at the same view.
 *
 * A call without overrides is a pure function of the view's state root, its
 * block env and the chain below it (BLOCKHASH), and the node's fixed config
 * (chain rules, RPC gas cap). A view is the object that carries all three and
 * never changes: a sealed block as the chain stores it (a cheat on the head
 * replaces that object with one holding the new root; a reorg, rewind or
 * fixture load puts other objects at those heights) or one published
 * pre-confirmation (each tick, restart, re-time or cheat publishes a new
 * one). So entries are keyed by that object's identity, and a new head,
 * reorg, cheat, snapshot revert or pending refresh needs no invalidation: the
 * next read resolves to another object and misses. A snapshot revert that puts
 * an old block object back finds that block's results, which are still its
 * results. Old entries leave first-in first-out past the bounds.
 *
 * A result is kept from the second run of its call at its view on (a call
 * asked once is not worth its memory, see `seenBefore`). Calls that run at
 * once share one run; a run that throws (insufficient funds, intrinsic gas)
 * is not kept, so the next call throws afresh.
 */
export function createCallMemo(limits: CallMemoLimits = defaultLimits) {
  const ids = new WeakMap<object, number>()
  let nextId = 0
  const entries = new Map<string, MemoizedCall | Promise<MemoizedCall>>()
  let bytes = 0

  const idOf = (view: View) => {
    const at = view.kind === 'sealed' ? view.block : view.snapshot
    let id = ids.get(at)
    if (id === undefined) ids.set(at, (id = nextId++))
    return id
  }

  // What an entry holds: its key, its return data (hex characters) and some overhead.
  const size = (key: string, value: MemoizedCall) => key.length + value.returnData.length + 64

  // A result is kept from the second run of its call on (seenKeys.ts).
  const seenBefore = createSeenKeys(limits.entries)

  const evict = () => {
    while (entries.size > limits.entries || bytes > limits.bytes) {
      const [key, value] = entries.entries().next().value!
      entries.delete(key)
      if (!(value instanceof Promise)) bytes -= size(key, value)
    }
  }

  return {
    /** The result of the call `key` at `view`: a kept one, a run in flight, or `run()`'s (kept when small enough). */
    run(view: View, key: string, run: () => Promise<MemoizedCall>): MemoizedCall | Promise<MemoizedCall> {
      // A call with large calldata is kept by nobody: its key alone would hold the bytes.
      if (key.length > limits.entryBytes) return run()
      const full = `${idOf(view)}:${key}`
      const found = entries.get(full)
      if (found !== undefined) return found
      const keep = seenBefore(full)
      // In the map while it runs either way: calls at once share the run.
      const pending = run().then(
        (value) => {
          // Cleared (fixture load) or evicted meanwhile: answer, keep nothing.
          if (entries.get(full) !== pending) return value
          if (!keep || value.returnData.length > limits.entryBytes) entries.delete(full)
          else {
            entries.set(full, value)
            bytes += size(full, value)
            evict()
          }
          return value
        },
        (error: unknown) => {
          if (entries.get(full) === pending) entries.delete(full)
          throw error
        },
      )
      entries.set(full, pending)
      evict()
      return pending
    },
    clear() {
      entries.clear()
      bytes = 0
    },
    /** Entries kept (tests). */
    size: () => entries.size,
  }
}

export type CallMemo = ReturnType<typeof createCallMemo>

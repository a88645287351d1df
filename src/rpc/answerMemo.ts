import { createSeenKeys } from '../node/seenKeys.js'
import type { View } from '../node/views.js'

/** Bounds of the memo: entries, bytes held in all (keys and answers), and the largest key or answer kept. */
export type AnswerMemoLimits = { entries: number; bytes: number; entryBytes: number }

const defaultLimits: AnswerMemoLimits = { entries: 4096, bytes: 4 << 20, entryBytes: 16 << 10 }

/**
 * The JSON text of a state read's result (eth_getBalance and the methods
 * declared with `readsState`, defineMethod.ts), kept for the same request at
 * the same view: a repeated read is answered without decoding its params,
 * reading the state or formatting the result.
 *
 * Keyed as the eth_call memo is (node/callMemo.ts, whose reasoning holds
 * here): by the identity of the object a view stands for (the sealed block
 * as the chain stores it, or the published pre-confirmation), which never
 * changes and is replaced by a new head, a cheat, a reorg, a snapshot revert
 * or a pending refresh, so none of those needs an invalidation; and by the
 * params as the client wrote them, so two spellings of one request are two
 * entries, never one answer for two requests. An answer is kept from its
 * key's second success on (seenKeys.ts); errors are never kept. Old entries
 * leave first-in first-out past the bounds.
 */
export function createAnswerMemo(limits: AnswerMemoLimits = defaultLimits) {
  const ids = new WeakMap<object, number>()
  let nextId = 0
  const entries = new Map<string, string>()
  let bytes = 0
  const seenBefore = createSeenKeys(limits.entries)

  const idOf = (view: View) => {
    const at = view.kind === 'sealed' ? view.block : view.snapshot
    let id = ids.get(at)
    if (id === undefined) ids.set(at, (id = nextId++))
    return id
  }

  return {
    /** The key of `method` with `params` (their text) at `view`, or undefined when the params are too long to keep. */
    key: (view: View, method: string, params: string): string | undefined =>
      params.length > limits.entryBytes ? undefined : `${idOf(view)}:${method}:${params}`,
    get: (key: string): string | undefined => entries.get(key),
    /** Keeps `result` (JSON text) under `key` when its key was seen before and it is small enough. */
    keep(key: string, result: string) {
      if (!seenBefore(key) || result.length > limits.entryBytes || entries.has(key)) return
      entries.set(key, result)
      bytes += key.length + result.length + 64
      while (entries.size > limits.entries || bytes > limits.bytes) {
        const [oldKey, oldResult] = entries.entries().next().value!
        entries.delete(oldKey)
        bytes -= oldKey.length + oldResult.length + 64
      }
    },
    /** Entries kept (tests). */
    size: () => entries.size,
  }
}

export type AnswerMemo = ReturnType<typeof createAnswerMemo>

import { createSeenKeys } from '../node/seenKeys.js'
import type { BlockId, View } from '../node/views.js'

/** Bounds of the memo: entries, bytes held in all (keys and answers), and the largest key or answer kept. */
export type AnswerMemoLimits = { entries: number; bytes: number; entryBytes: number }

const defaultLimits: AnswerMemoLimits = { entries: 4096, bytes: 4 << 20, entryBytes: 16 << 10 }

/** A kept answer: the block id its request named, the view that id resolved to, and the result's JSON text. */
type Entry = { id: BlockId; at: number; result: string }

/**
 * The JSON text of a state read's result (the methods declared with
 * `readsState`, defineMethod.ts), kept for the same request at the same
 * view: a repeated read is answered without parsing its params, reading the
 * state or formatting the result.
 *
 * An entry is keyed by the request as the client wrote it (method and params
 * text: two spellings of one request are two entries, never one answer for
 * two requests) and holds the last view it was answered at. A view is told
 * by the identity of the object it stands for, as the eth_call memo does
 * (node/callMemo.ts, whose reasoning holds here): the sealed block as the
 * chain stores it, or the published pre-confirmation, which never change
 * and are replaced by a new head, a cheat, a reorg, a snapshot revert or a
 * pending refresh. So none of those needs an invalidation: the request's
 * block id resolves to another object, and the entry no longer answers. An
 * answer is kept from its request's second success on (seenKeys.ts); errors
 * are never kept. Old entries leave first-in first-out past the bounds.
 */
export function createAnswerMemo(limits: AnswerMemoLimits = defaultLimits) {
  const ids = new WeakMap<object, number>()
  let nextId = 0
  const entries = new Map<string, Entry>()
  let bytes = 0
  const seenBefore = createSeenKeys(limits.entries)
  const size = (key: string, entry: Entry) => key.length + entry.result.length + 64

  /** A number for the object `view` stands for, the same for as long as that object lives. */
  const at = (view: View) => {
    const of = view.kind === 'sealed' ? view.block : view.snapshot
    let id = ids.get(of)
    if (id === undefined) ids.set(of, (id = nextId++))
    return id
  }

  return {
    at,
    /** The key of `method` with `params` (their text), or undefined when the params are too long to keep. */
    key: (method: string, params: string): string | undefined =>
      params.length > limits.entryBytes ? undefined : `${method}:${params}`,
    /** The answer kept for `key`, if it was computed at the view its block id resolves to now. */
    get(key: string, resolve: (id: BlockId) => View): string | undefined {
      const entry = entries.get(key)
      return entry !== undefined && at(resolve(entry.id)) === entry.at ? entry.result : undefined
    },
    /** Keeps `result` (JSON text), computed at the view `at` that `id` resolved to, when its key was seen before. */
    keep(key: string, id: BlockId, view: number, result: string) {
      if (!seenBefore(key) || result.length > limits.entryBytes) return
      const old = entries.get(key)
      if (old !== undefined) {
        entries.delete(key)
        bytes -= size(key, old)
      }
      const entry = { id, at: view, result }
      entries.set(key, entry)
      bytes += size(key, entry)
      while (entries.size > limits.entries || bytes > limits.bytes) {
        const [oldKey, oldEntry] = entries.entries().next().value!
        entries.delete(oldKey)
        bytes -= size(oldKey, oldEntry)
      }
    },
    /** Entries kept (tests). */
    size: () => entries.size,
  }
}

export type AnswerMemo = ReturnType<typeof createAnswerMemo>

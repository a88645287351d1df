import { type Address, bytesToHex, concatBytes, setLengthLeft } from '../../evm/engine.js'
import { keccak256 } from '../../evm/engine.js'

/**
 * On a fork, the upstream reads a transaction is about to make, asked for
 * before it runs. Executing a transaction stops at each cold read for a
 * round trip to the upstream; what can be predicted goes out at admission,
 * in one JSON-RPC batch with the other reads of that moment, and the
 * execution then finds it cached or joins the read in flight.
 *
 * Predicted: the sender's and the recipient's accounts (with the code), and
 * the storage words of mappings keyed by an address of the transaction.
 * Solidity keeps `mapping(address => …)` at slot p under keccak(key ‖ p), so
 * `transfer(to, amount)` on a token reads keccak(to ‖ p) for its balances
 * mapping p (9 on FiatToken). Which word of which call keys which mapping is
 * learnt from the transactions seen: while a contract's function is new,
 * keccak(word ‖ p) is computed for the sender and each calldata word and
 * small p, and a cold read of one of those keys teaches (function, word, p);
 * later calls of that function prefetch those keys.
 */

/** Mapping slots tried while learning: the storage layouts seen in practice declare their mappings early. */
const maxBase = 16
/** Calls of a function watched for learning, renewed when one teaches something. */
const learningCalls = 8
/** Keys watched at once (a bound on memory; cleared when full). */
const maxWatched = 4096

type Lesson = { position: number; base: number }

const noop = () => {}

export function createPrefetch(read: {
  hasStorage(address: Address): Promise<boolean>
  storage(address: Address, key: Uint8Array): Promise<unknown>
}) {
  /** "contract:selector" → (word position, mapping slot) pairs learnt; position -1 is the sender. */
  const learnt = new Map<string, Lesson[]>()
  const budget = new Map<string, number>()
  /** A key under watch (0x hex) → what reading it teaches. */
  const watched = new Map<string, { fn: string; contract: string } & Lesson>()

  const key = (word: Uint8Array, base: number) => {
    const slot = new Uint8Array(32)
    slot[31] = base
    return keccak256(concatBytes(word, slot))
  }

  /** The sender and the calldata's words that can be addresses (12 zero bytes, then not all zero). */
  function words(from: Address, data: Uint8Array): (Uint8Array | undefined)[] {
    const out: (Uint8Array | undefined)[] = [setLengthLeft(from.bytes, 32)]
    for (let at = 4; at + 32 <= data.length && out.length <= 8; at += 32) {
      const word = data.subarray(at, at + 32)
      let addressLike = true
      for (let i = 0; i < 12 && addressLike; i++) addressLike = word[i] === 0
      out.push(addressLike && word.subarray(12).some((b) => b !== 0) ? word : undefined)
    }
    return out
  }

  return {
    /** Before a transaction (or call) from `from` to `to` with `data` runs: asks for what it will likely read. */
    transaction(from: Address, to: Address | undefined, data: Uint8Array) {
      // (The sender is not asked for: admission reads it first, and it is often a local account the upstream does not hold.)
      if (!to) return
      // The recipient with its code: cached after the first time; a contract deployed locally costs one empty read.
      const upstreamContract = read.hasStorage(to).catch(() => false)
      if (data.length < 4) return
      const contract = to.toString()
      const fn = `${contract}:${bytesToHex(data.subarray(0, 4))}`
      const candidates = words(from, data)
      const lessons = learnt.get(fn) ?? []
      const keys: Uint8Array[] = []
      for (const { position, base } of lessons) {
        const word = candidates[position + 1]
        if (word) keys.push(key(word, base))
      }
      // Only of a contract the upstream holds (a cached account answers within this tick, so the reads share one batch).
      if (keys.length > 0)
        void upstreamContract.then((has) => {
          if (has) for (const k of keys) void read.storage(to, k).catch(noop)
        })
      const left = budget.get(fn) ?? learningCalls
      if (left <= 0) return
      budget.set(fn, left - 1)
      if (watched.size > maxWatched) watched.clear()
      candidates.forEach((word, i) => {
        if (!word) return
        for (let base = 0; base < maxBase; base++)
          if (!lessons.some((l) => l.position === i - 1 && l.base === base))
            watched.set(bytesToHex(key(word, base)), { fn, contract, position: i - 1, base })
      })
    },
    /** A storage word read from the upstream (0x hex address and key): learns from it if a transaction predicted it. */
    missed(address: string, slot: string) {
      const hit = watched.get(slot)
      if (!hit || hit.contract !== address) return
      watched.delete(slot)
      const lessons = learnt.get(hit.fn) ?? []
      if (lessons.some((l) => l.position === hit.position && l.base === hit.base)) return
      learnt.set(hit.fn, [...lessons, { position: hit.position, base: hit.base }])
      budget.set(hit.fn, learningCalls)
    },
  }
}

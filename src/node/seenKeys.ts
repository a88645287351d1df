/**
 * Which keys were offered once before, as 32-bit hashes in a fixed table (a
 * slot per hash, the last one wins): what the memos (callMemo.ts,
 * rpc/answerMemo.ts) ask before keeping a result, so that a result is kept
 * from its key's second run on. A key asked once (a balanceOf of each holder
 * in turn) would only hold memory until evicted, and each kept entry outlived
 * the young generation, so every miss paid its copy into the old one and its
 * collection there (~15 % of such an eth_call's CPU). A collision or an
 * overwritten slot only delays keeping by a run; an answer never depends on
 * the table.
 */
export function createSeenKeys(entries: number): (key: string) => boolean {
  const seen = new Int32Array(seenSlots(entries))
  const mask = seen.length - 1
  return (key) => {
    const hash = fnv1a(key)
    const slot = hash & mask
    if (seen[slot] === hash) return true
    seen[slot] = hash
    return false
  }
}

/** Twice the entries, a power of two: most keys run once recently keep their slot until their second run. */
const seenSlots = (entries: number) => 1 << Math.max(4, Math.ceil(Math.log2(Math.max(1, entries) * 2)))

/** FNV-1a over the key's UTF-16 code units, as a signed 32-bit integer (what an Int32Array holds). */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return hash | 0
}

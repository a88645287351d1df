/** Trie paths: a key as nibbles, and a path's hex-prefix encoding in leaf and extension nodes (Yellow Paper, appendix C). */

export function nibbles(bytes: Uint8Array): number[] {
  const out = new Array<number>(bytes.length * 2)
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i]! >> 4
    out[2 * i + 1] = bytes[i]! & 15
  }
  return out
}

/** Hex-prefix encoding of a nibble path (flag 2 for a leaf, +1 for an odd length). */
export function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2
  const out = new Uint8Array(1 + (path.length >> 1))
  out[0] = ((leaf ? 2 : 0) + odd) << 4
  let at = 0
  if (odd) out[0]! |= path[at++]!
  for (let i = 1; i < out.length; i++, at += 2) out[i] = (path[at]! << 4) | path[at + 1]!
  return out
}

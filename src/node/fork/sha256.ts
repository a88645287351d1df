/**
 * SHA-256 of a string's UTF-8 bytes, as lowercase hex: what
 * `createHash('sha256').update(text).digest('hex')` gives (FIPS 180-4).
 *
 * Why not node:crypto: a fork names its URL's cache file by this hash
 * (firstReads.ts), before the CLI's front bundle listens (src/cli/front.ts),
 * and loading node:crypto is ~6 ms of CPU of a cold process on the bench
 * machine, against a few microseconds for the one short block a URL is.
 * Nothing here is secret or timing-sensitive: the hash only keeps an API
 * key in the URL out of the cache's file names.
 */
export function sha256Hex(text: string): string {
  const bytes = Buffer.from(text, 'utf8')
  // The message, a 1 bit, zeros, then its length in bits (64-bit big-endian): whole 64-byte blocks of words.
  const words = new Uint32Array(((bytes.length + 8) >> 6) * 16 + 16)
  for (let i = 0; i < bytes.length; i++) words[i >> 2]! |= bytes[i]! << (24 - (i & 3) * 8)
  words[bytes.length >> 2]! |= 0x80 << (24 - (bytes.length & 3) * 8)
  words[words.length - 2] = Math.floor(bytes.length / 0x20000000)
  words[words.length - 1] = bytes.length * 8
  const state = Uint32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
  const w = new Uint32Array(64)
  for (let block = 0; block < words.length; block += 16) {
    for (let t = 0; t < 16; t++) w[t] = words[block + t]!
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15]!
      const b = w[t - 2]!
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10)
      w[t] = w[t - 16]! + s0 + w[t - 7]! + s1
    }
    let a = state[0]!
    let b = state[1]!
    let c = state[2]!
    let d = state[3]!
    let e = state[4]!
    let f = state[5]!
    let g = state[6]!
    let h = state[7]!
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + roundConstants[t]! + w[t]!) | 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0
      h = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    state[0]! += a
    state[1]! += b
    state[2]! += c
    state[3]! += d
    state[4]! += e
    state[5]! += f
    state[6]! += g
    state[7]! += h
  }
  let hex = ''
  for (const word of state) hex += word.toString(16).padStart(8, '0')
  return hex
}

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const roundConstants = Uint32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
)

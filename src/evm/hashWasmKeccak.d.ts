/** hash-wasm's per-algorithm build of keccak (a UMD script, CommonJS under Node), which ships no declarations of its own. */
declare module 'hash-wasm/dist/keccak.umd.min.js' {
  import type { IHasher } from 'hash-wasm'
  const keccak: { createKeccak(bits: 224 | 256 | 384 | 512): Promise<IHasher> }
  export = keccak
}

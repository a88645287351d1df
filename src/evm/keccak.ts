import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { IHasher } from 'hash-wasm'
import hashWasmKeccak from 'hash-wasm/dist/keccak.umd.min.js'
import { keccak256 as viemKeccak256 } from 'viem/utils'

/*
 * The keccak-256 every devnet hash goes through (Common's customCrypto, so
 * the state trie, code hashes and transaction hashes; sender addresses; the
 * transaction and receipt roots; fixtures).
 *
 * Trie hashing is the largest cost of sealing a block, and a trie node is
 * 32 to 600 bytes: at those sizes hash-wasm's WebAssembly keccak takes about
 * half the time of the native `keccak` binding (1.2 µs against 2.5 µs for
 * 32-110 bytes), whose every call crosses into C++ and allocates a Buffer.
 * WebAssembly compiles asynchronously and the CLI bundle allows no top-level
 * await, so the module starts compiling when it loads, createNode awaits
 * `keccakReady`, and until it is ready hashes go to the native binding (or,
 * without it, to viem's pure-JS keccak). All three give the same bytes.
 */

type NativeKeccakState = new () => {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  squeeze(length: number): Buffer
}

const require = createRequire(import.meta.url)

/**
 * The native binding's keccak state, used directly: its `keccak('keccak256')`
 * API builds a readable-stream Transform per hash, which costs more than the
 * hashing of a trie node.
 */
function loadNativeState(): NativeKeccakState | undefined {
  try {
    const bindings = require.resolve('keccak/bindings')
    const state = createRequire(bindings)('node-gyp-build')(dirname(bindings)) as unknown
    return typeof state === 'function' ? (state as NativeKeccakState) : undefined
  } catch {
    return undefined
  }
}

const asBuffer = (data: Uint8Array) => (Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))

function nativeKeccak(): ((data: Uint8Array) => Uint8Array) | undefined {
  const State = loadNativeState()
  if (!State) return undefined
  const state = new State()
  return (data) => {
    // keccak-256: rate 1088, capacity 512, no domain suffix (sha3-256 would add 0x06).
    state.initialize(1088, 512)
    state.absorb(asBuffer(data))
    const digest = state.squeeze(32)
    return new Uint8Array(digest.buffer, digest.byteOffset, 32)
  }
}

let fallback: ((data: Uint8Array) => Uint8Array) | undefined

/**
 * The keccak used until the WebAssembly one is ready (and if it never is).
 * The native binding is loaded at its first call, not with this module:
 * resolving and opening it took ~3-5 ms of every start's CPU (loaded), and
 * a start whose first hash comes after `keccakReady` (the node awaits it
 * before building) never calls this.
 */
export function keccak256Fallback(data: Uint8Array): Uint8Array {
  fallback ??= nativeKeccak() ?? ((bytes) => viemKeccak256(bytes, 'bytes'))
  return fallback(data)
}

/**
 * One hasher, reused: hashing is synchronous, so no call can interleave with
 * another. `digest('binary')` returns a fresh copy of the 32 bytes.
 */
function wasmKeccak(hasher: IHasher) {
  return (data: Uint8Array): Uint8Array => {
    hasher.init()
    hasher.update(data)
    return hasher.digest('binary')
  }
}

let fast: ((data: Uint8Array) => Uint8Array) | undefined

/**
 * Resolves once the WebAssembly keccak is in use, or once it failed to load
 * (then the fallback stays; devnet is only slower). Never rejects.
 * The per-algorithm build of hash-wasm (11 KB) is imported rather than its
 * index (270 KB of every algorithm's WebAssembly as base64), and imported
 * rather than required at run time: the CLI bundle takes it in, compiled from
 * its code cache, where a require resolved, read and compiled it at every
 * start (~2 ms of CPU, ~70 page faults).
 */
export const keccakReady: Promise<void> = (async () => {
  try {
    fast = wasmKeccak(await hashWasmKeccak.createKeccak(256))
  } catch {
    fast = undefined
  }
})()

/** Whether hashes currently go to the WebAssembly keccak. */
export const wasmKeccakInUse = () => fast !== undefined

/** keccak-256 of `data`, a new 32-byte array. */
export function keccak256(data: Uint8Array): Uint8Array {
  return fast !== undefined ? fast(data) : keccak256Fallback(data)
}

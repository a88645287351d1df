import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { CustomCrypto } from '@ethereumjs/common'
import { calculateSigRecovery, setLengthLeft } from '@ethereumjs/util'

type NativeKeccak = (algorithm: 'keccak256') => {
  update(data: Uint8Array): { digest(): Buffer }
}

type NativeSecp256k1 = {
  ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array
}

/**
 * Signature recovery is the hottest step of transaction admission: pure-JS
 * recovery runs near 900/s, the native `secp256k1` binding (prebuilt binaries
 * ship in the npm package) about 20 times faster. When the binding cannot load
 * we fall back to ethereumjs's own code, so devnet still works, only slower.
 */
function load<T>(id: string): T | undefined {
  try {
    return createRequire(import.meta.url)(id) as T
  } catch {
    return undefined
  }
}

const native = load<NativeSecp256k1>('secp256k1/bindings')

/**
 * Trie hashing is the largest cost of sealing a block; the native `keccak`
 * binding (prebuilt, like secp256k1's) hashes a trie node about 4 times
 * faster than the pure-JS one. Its `keccak('keccak256')` API builds a
 * readable-stream Transform per hash, which costs more than the hashing of
 * a trie node; one reused native state (initialize, absorb, squeeze: what
 * that API does inside) halves the time per hash and allocates almost
 * nothing.
 */
type NativeKeccakState = new () => {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  squeeze(length: number): Buffer
}

function loadKeccakState(): NativeKeccakState | undefined {
  try {
    const bindings = createRequire(import.meta.url).resolve('keccak/bindings')
    const state = createRequire(bindings)('node-gyp-build')(dirname(bindings)) as unknown
    return typeof state === 'function' ? (state as NativeKeccakState) : undefined
  } catch {
    return undefined
  }
}

const KeccakState = loadKeccakState()
const nativeKeccak = KeccakState ? undefined : load<NativeKeccak>('keccak/bindings')

const asBuffer = (data: Uint8Array) => (Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))

const keccak256 = KeccakState
  ? (() => {
      const state = new KeccakState()
      return (data: Uint8Array): Uint8Array => {
        // keccak-256: rate 1088, capacity 512, no domain suffix (sha3-256 would add 0x06).
        state.initialize(1088, 512)
        state.absorb(asBuffer(data))
        const digest = state.squeeze(32)
        return new Uint8Array(digest.buffer, digest.byteOffset, 32)
      }
    })()
  : nativeKeccak
    ? (data: Uint8Array): Uint8Array => {
        const digest = nativeKeccak('keccak256').update(asBuffer(data)).digest()
        return new Uint8Array(digest.buffer, digest.byteOffset, 32)
      }
    : undefined

/** Whether the native secp256k1 binding is in use. */
export const nativeCrypto = native !== undefined

/** `customCrypto` for every `Common` devnet creates. */
export const customCrypto: CustomCrypto = {
  ...(keccak256 ? { keccak256 } : {}),
  ...(native
  ? {
      ecrecover(msgHash, v, r, s, chainId) {
        const recovery = calculateSigRecovery(v, chainId)
        if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
        const signature = new Uint8Array(64)
        signature.set(setLengthLeft(r, 32), 0)
        signature.set(setLengthLeft(s, 32), 32)
        // Uncompressed key without its 0x04 prefix, as ethereumjs returns it.
        return native.ecdsaRecover(signature, Number(recovery), msgHash, false).slice(1)
      },
    }
  : {}),
}

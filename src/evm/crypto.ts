import { createRequire } from 'node:module'
import type { CustomCrypto } from '@ethereumjs/common'
import { calculateSigRecovery, ecrecover, setLengthLeft } from '@ethereumjs/util'
import { keccak256 } from './keccak.js'

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

/**
 * The binding, loaded on the first recovery rather than with the engine:
 * loading it (node-gyp-build's search, dlopen, the library's context) costs
 * ~10 ms, and a start (or a fork's first reads) recovers no signature.
 * null: it cannot load here.
 */
let native: NativeSecp256k1 | null | undefined
const binding = () => (native === undefined ? (native = load<NativeSecp256k1>('secp256k1/bindings') ?? null) : native)

/** Whether the native secp256k1 binding is in use (loads it). */
export const nativeCrypto = () => binding() !== null

/** `customCrypto` for every `Common` devnet creates. */
export const customCrypto: CustomCrypto = {
  keccak256,
  ecrecover(msgHash, v, r, s, chainId) {
    const secp256k1 = binding()
    // ethereumjs's own (pure-JS) recovery, which it uses when customCrypto has none.
    if (!secp256k1) return ecrecover(msgHash, v, r, s, chainId)
    const recovery = calculateSigRecovery(v, chainId)
    if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
    const signature = new Uint8Array(64)
    signature.set(setLengthLeft(r, 32), 0)
    signature.set(setLengthLeft(s, 32), 32)
    // Uncompressed key without its 0x04 prefix, as ethereumjs returns it.
    return secp256k1.ecdsaRecover(signature, Number(recovery), msgHash, false).slice(1)
  },
}

import { Bloom } from '@ethereumjs/vm'
import { keccak256 } from 'viem/utils'
import { evmInternals } from './evmInternals.js'
import { hexKey, hexOf } from './hexKeys.js'

/**
 * Memos of the two keccak hashes every token call repeats with the same
 * inputs: the KECCAK256 opcode (a mapping slot is keccak(key . slot): a
 * balanceOf hashes the holder's slot, a transfer both parties', the same
 * ones call after call), and the bloom of each log (the token's address and
 * the Transfer topic in every receipt). A hash is a pure function of its
 * input, so a memo answers what hashing would; on this machine a native
 * keccak of 64 bytes costs several times a map lookup.
 *
 * Only short inputs are kept (≤ 128 bytes: slots, addresses, topics), in a
 * bounded map that starts over when full. Hashes handed out are copies:
 * callers own what they get. A key is the input's hex from Node's native
 * encoder (hexKeys.ts), one flat string: built a byte at a time it was a rope
 * of one 32-byte cons cell per byte, ~4 % of what a 100-call eth_simulateV1
 * allocated, and had to be flattened before it was stored (or a 64-byte key
 * kept ~2 kB of cells).
 */

const maxInput = 128
const maxEntries = 20_000

type Keccak = (data: Uint8Array) => Uint8Array

const keyOf = hexKey

/** Per hash function (a Common's custom keccak, or the library default): the words KECCAK256 pushed. */
const words = new WeakMap<Keccak, Map<string, bigint>>()
/** Per hash function: the hashes blooms took. */
const hashes = new WeakMap<Keccak, Map<string, Uint8Array>>()

function table<T>(memos: WeakMap<Keccak, Map<string, T>>, keccak: Keccak) {
  let memo = memos.get(keccak)
  if (memo === undefined) memos.set(keccak, (memo = new Map()))
  if (memo.size >= maxEntries) memo.clear()
  return memo
}

/** The word KECCAK256 pushes for `data`: `BigInt(bytesToHex(keccak(data)))`. */
export function keccakWord(keccak: Keccak, data: Uint8Array): bigint {
  if (data.length > maxInput) return BigInt(hexOf(keccak(data)))
  const memo = table(words, keccak)
  const key = keyOf(data)
  let word = memo.get(key)
  if (word === undefined) memo.set(key, (word = BigInt(hexOf(keccak(data)))))
  return word
}

/** The library's default (noble's keccak_256, which viem uses too), for a Common without a custom one. */
const defaultKeccak: Keccak = (data) => keccak256(data, 'bytes')

let applied = false

type StackLike = { popN(n: number): bigint[]; push(value: bigint): void }
type RunState = { stack: StackLike; memory: { read(offset: number, size: number): Uint8Array } }

export function applyKeccakMemo() {
  if (applied) return
  applied = true
  const { handlers } = evmInternals.functions as {
    handlers: Map<number, (runState: RunState, common: { customCrypto: { keccak256?: Keccak } }) => void>
  }

  // KECCAK256: as the library's handler, with the hash looked up first.
  handlers.set(0x20, (runState, common) => {
    const [offset, length] = runState.stack.popN(2) as [bigint, bigint]
    let data: Uint8Array = new Uint8Array(0)
    if (length !== 0n) data = runState.memory.read(Number(offset), Number(length))
    runState.stack.push(keccakWord(common.customCrypto.keccak256 ?? defaultKeccak, data))
  })

  const proto = Bloom.prototype as unknown as { add(this: { keccakFunction: Keccak; bitvector: Uint8Array }, e: Uint8Array): void }
  proto.add = function (e) {
    let hash: Uint8Array | undefined
    if (e.length <= maxInput) {
      const memo = table(hashes, this.keccakFunction)
      const key = keyOf(e)
      hash = memo.get(key)
      if (hash === undefined) memo.set(key, (hash = this.keccakFunction(e).slice()))
    } else hash = this.keccakFunction(e).slice()
    // The library's bit selection: three 11-bit indexes from the hash's first six bytes.
    const view = new DataView(hash.buffer, hash.byteOffset, hash.byteLength)
    for (let i = 0; i < 3; i++) {
      const loc = 2047 & view.getUint16(i * 2)
      this.bitvector[256 - (loc >> 3) - 1]! |= 1 << (loc % 8)
    }
  }
}

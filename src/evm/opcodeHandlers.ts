/**
 * Faster equivalents of the @ethereumjs/evm 10.1 handlers of MSTORE, SLOAD
 * (and SLOAD's gas), SSTORE, MLOAD and CALLDATALOAD, installed in the library's handler tables
 * before any EVM is created (every EVM copies the tables when it is built).
 *
 * Each turned a stack word into 32 bytes as
 * `setLengthLeft(bigIntToBytes(word), 32)`: a hex string, a parse, and a
 * left pad that rebuilds the array through two array spreads; MLOAD and
 * CALLDATALOAD read words back through a hex string. Those were a few per
 * cent of a token call. Here words are written into and read from bytes
 * directly; everything else is the original handler's, in its order. SSTORE
 * keeps the original where EIP-8037 (state gas) is active.
 */
import { EVMError } from '@ethereumjs/evm'
import { setLengthLeft } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import type { OriginalStorageCache } from '@ethereumjs/statemanager'
import { evmInternals } from './evmInternals.js'
import { cachedOriginal, originalCacheIsPatched } from './hexKeys.js'
import { observerOf } from './opcodeObserver.js'
import { patchedPutStorage } from './statePatches.js'
import { ViewStateManager } from './viewState.js'

type Stack = { pop(): bigint; popN(n: number): bigint[]; peek(n?: number): bigint[]; push(value: bigint): void }
type RunState = {
  stack: Stack
  memory: { write(offset: number, size: number, value: Uint8Array): void; read(offset: number, size: number, avoidCopy?: boolean): Uint8Array }
  interpreter: {
    getCallDataSize(): bigint
    getCallData(): Uint8Array
    storageLoad(key: Uint8Array, original?: boolean, warm?: boolean): Promise<Uint8Array>
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>
    isStatic(): boolean
    log(data: Uint8Array, topicsCount: number, topics: Uint8Array[]): void
    _evm: { common: Common }
    _stateManager: { getStorage: unknown; originalStorageCache: OriginalStorageCache }
    _env: { address: Address; contract?: unknown }
  }
  env: { accessWitness?: unknown }
  opCode: number
}
type Common = { isActivatedEIP(eip: number): boolean; hardfork(): string; gteHardfork(hardfork: string): boolean }
type Handler = (runState: RunState, common: Common) => unknown
type GasHandler = (runState: RunState, gas: bigint, common: Common) => Promise<bigint> | bigint

const mask64 = (1n << 64n) - 1n

/** `setLengthLeft(bigIntToBytes(word), 32)` for a 256-bit stack word. */
export function word32(word: bigint): Uint8Array {
  return fillWord(word).slice()
}

/**
 * The word's 32 bytes in a shared scratch array, valid until the next call:
 * for a caller that copies them at once (MSTORE). `setBigUint64` keeps the
 * low 64 bits of what it is given, so no mask is needed; a word below 2^64
 * (offsets, amounts) also skips the three shifts, each a new bigint.
 */
function fillWord(word: bigint): Uint8Array {
  if (word <= mask64) {
    scratchView.setBigUint64(0, 0n)
    scratchView.setBigUint64(8, 0n)
    scratchView.setBigUint64(16, 0n)
  } else {
    scratchView.setBigUint64(0, word >> 192n)
    scratchView.setBigUint64(8, word >> 128n)
    scratchView.setBigUint64(16, word >> 64n)
  }
  scratchView.setBigUint64(24, word)
  return scratch
}

const scratch = new Uint8Array(32)
const scratchView = new DataView(scratch.buffer)

/**
 * `setLengthLeftStorage` of the EVM's opcode utilities: a stored value as the
 * SSTORE gas rules compare it, empty when it is all zeros, else padded to a
 * word (the same array when it already is one, as `setLengthLeft` returns it).
 */
export function storageWord(value: Uint8Array): Uint8Array {
  let i = 0
  while (i < value.length && value[i] === 0) i++
  if (i === value.length) return new Uint8Array(0)
  if (value.length >= 32) return setLengthLeft(value, 32)
  const word = new Uint8Array(32)
  word.set(value, 32 - value.length)
  return word
}

/** The minimal big-endian bytes of a positive word, as `bigIntToBytes` gives them. */
function minimalBytes(word: bigint): Uint8Array {
  const full = word32(word)
  let start = 0
  while (start < 31 && full[start] === 0) start++
  return full.slice(start)
}

const viewGetStorage = ViewStateManager.prototype.getStorage
const viewGetAccount = ViewStateManager.prototype.getAccount

/**
 * What `interpreter.storageLoad(key)` (current value) would resolve to, when
 * the frame's state is a view's (ViewStateManager, its own getStorage) and
 * its cache already holds the slot: the same bytes, without the three async
 * functions (handler, storageLoad, getStorage) a read goes through.
 * Undefined when storageLoad has to run. Not with EIP-7928, whose block
 * access list storageLoad records reads in.
 */
function cachedSlot(runState: RunState, key: Uint8Array, common: Common): Uint8Array | undefined {
  const interpreter = runState.interpreter
  const state = interpreter._stateManager
  if (!(state instanceof ViewStateManager) || state.getStorage !== viewGetStorage || common.isActivatedEIP(7928)) return undefined
  return state.cachedStorage(interpreter._env.address, key)
}

let applied = false

/** The library's handlers this module replaces where tests compare against them (filled when applied). */
export const libraryHandlers: { sstoreGas?: GasHandler; log?: Handler } = {}

export function applyOpcodeHandlers() {
  if (applied) return
  applied = true
  const { handlers } = evmInternals.functions as { handlers: Map<number, Handler> }
  const { dynamicGasHandlers } = evmInternals.gas as { dynamicGasHandlers: Map<number, GasHandler> }
  const { accessStorageEIP2929 } = evmInternals.eip2929 as {
    accessStorageEIP2929(runState: RunState, key: Uint8Array, isSstore: boolean, common: Common, chargeGas?: boolean): bigint
  }

  const { updateSstoreGasEIP2200 } = evmInternals.eip2200 as {
    updateSstoreGasEIP2200(runState: RunState, current: Uint8Array, original: Uint8Array, value: Uint8Array, key: Uint8Array, common: Common): bigint
  }

  const sstore = handlers.get(0x55)!
  const sloadGas = dynamicGasHandlers.get(0x54)!
  const sstoreGas = dynamicGasHandlers.get(0x55)!
  libraryHandlers.sstoreGas = sstoreGas
  libraryHandlers.log = handlers.get(0xa0)!

  // MSTORE: memory.write copies the bytes in (from the scratch word, no copy of its own).
  handlers.set(0x52, (runState) => {
    const [offset, word] = runState.stack.popN(2) as [bigint, bigint]
    runState.memory.write(Number(offset), 32, fillWord(word))
  })

  // MLOAD: memory.read without a copy hands out a view of memory; only read here.
  handlers.set(0x51, (runState) => {
    const pos = runState.stack.pop()
    runState.stack.push(bytesToBigInt(runState.memory.read(Number(pos), 32, true)))
  })

  // CALLDATALOAD: bytes past the end of the call data read as zeros.
  handlers.set(0x35, (runState) => {
    const pos = runState.stack.pop()
    if (pos > runState.interpreter.getCallDataSize()) {
      runState.stack.push(0n)
      return
    }
    const i = Number(pos)
    const loaded = runState.interpreter.getCallData().subarray(i, i + 32)
    let r = bytesToBigInt(loaded)
    if (loaded.length < 32) r <<= 8n * BigInt(32 - loaded.length)
    runState.stack.push(r)
  })

  // SLOAD
  // SLOAD: a slot the view's cache holds is read at once, without a promise for the loop to await.
  const sloadAwaited = async (runState: RunState, key: Uint8Array) => {
    const value = await runState.interpreter.storageLoad(key)
    runState.stack.push(value.length ? bytesToBigInt(value) : 0n)
  }
  handlers.set(0x54, (runState, common) => {
    const key = word32(runState.stack.pop())
    const value = cachedSlot(runState, key, common)
    if (value === undefined) return sloadAwaited(runState, key)
    runState.stack.push(value.length ? bytesToBigInt(value) : 0n)
  })

  // SLOAD's gas: the witness branch (EIP-6800/7864) stays the original's.
  dynamicGasHandlers.set(0x54, (runState, gas, common) => {
    if (common.isActivatedEIP(6800) || common.isActivatedEIP(7864)) return sloadGas(runState, gas, common)
    const key = runState.stack.peek()[0]!
    if (common.isActivatedEIP(2929)) gas += accessStorageEIP2929(runState, word32(key), false, common, true)
    return gas
  })

  // SSTORE, where it has no state gas to meter (EIP-8037).
  // A view's state whose cache holds the account stores at once (ViewStateManager.storeCached), without a promise.
  handlers.set(0x55, (runState, common) => {
    const interpreter = runState.interpreter
    if (interpreter._evm.common.isActivatedEIP(8037)) return sstore(runState, common)
    const [key, val] = runState.stack.popN(2) as [bigint, bigint]
    const value = val === 0n ? new Uint8Array(0) : minimalBytes(val)
    const keyBytes = word32(key)
    const state = interpreter._stateManager
    if (
      state instanceof ViewStateManager &&
      state.getAccount === viewGetAccount &&
      state.putStorage === patchedPutStorage &&
      !interpreter._evm.common.isActivatedEIP(7928)
    ) {
      const account = state.storeCached(interpreter._env.address, keyBytes, value)
      if (account !== undefined) {
        interpreter._env.contract = account
        return
      }
    }
    return interpreter.storageStore(keyBytes, value)
  })

  /*
   * SSTORE's gas from Istanbul on (EIP-2200, with EIP-2929's access cost): the
   * original's steps and calls, its byte padding done by word32/storageWord.
   * Constantinople, pre-Istanbul chains, state gas (EIP-8038), block access
   * lists (EIP-7928) and stateless witnesses keep the original.
   */
  const sstoreGasOf = (runState: RunState, gas: bigint, common: Common, keyBytes: Uint8Array, val: bigint, current: Uint8Array, original: Uint8Array) => {
    const currentStorage = storageWord(current)
    const originalStorage = storageWord(original)
    // The original's setLengthLeftStorage(bigIntToBytes(val)): empty for zero, else the value as a word.
    const value = val === 0n ? new Uint8Array(0) : word32(val)
    gas += updateSstoreGasEIP2200(runState, currentStorage, originalStorage, value, keyBytes, common)
    if (common.isActivatedEIP(2929)) gas += accessStorageEIP2929(runState, keyBytes, true, common, true)
    return gas
  }
  const sstoreGasAwaited = async (runState: RunState, gas: bigint, common: Common, keyBytes: Uint8Array, val: bigint) => {
    const current = await runState.interpreter.storageLoad(keyBytes, false, false)
    const original = await runState.interpreter.storageLoad(keyBytes, true, false)
    return sstoreGasOf(runState, gas, common, keyBytes, val, current, original)
  }
  // When the view's caches hold both the slot and its original value (a slot read before, as a token transfer's
  // balances are by its checks), the gas is computed at once: no promise for the loop to await.
  dynamicGasHandlers.set(0x55, (runState, gas, common) => {
    if (
      common.isActivatedEIP(8038) ||
      common.isActivatedEIP(7928) ||
      common.isActivatedEIP(6800) ||
      common.isActivatedEIP(7864) ||
      common.hardfork() === 'constantinople' ||
      !common.gteHardfork('istanbul')
    )
      return sstoreGas(runState, gas, common)
    if (runState.interpreter.isStatic()) throw new EVMError(EVMError.errorMessages.STATIC_STATE_CHANGE)
    const [key, val] = runState.stack.peek(2) as [bigint, bigint]
    const keyBytes = word32(key)
    const current = cachedSlot(runState, keyBytes, common)
    if (current === undefined) return sstoreGasAwaited(runState, gas, common, keyBytes, val)
    const { originalStorageCache, getStorage } = runState.interpreter._stateManager
    const address = runState.interpreter._env.address
    let original = cachedOriginal(originalStorageCache, address, keyBytes)
    if (original === undefined) {
      // The original cache's get, on a miss, reads the slot through the state's getStorage (bound at the state's
      // construction, the view's own: cachedSlot checked it) and remembers it: that read is `current`.
      if (getStorage !== viewGetStorage || !originalCacheIsPatched(originalStorageCache)) return sstoreGasAwaited(runState, gas, common, keyBytes, val)
      originalStorageCache.put(address, keyBytes, current)
      original = current
    }
    return sstoreGasOf(runState, gas, common, keyBytes, val, current, original)
  })

  // LOG0..LOG4: topics as words without the hex round trip; the data is a copy of memory, as before.
  const log: Handler = (runState) => {
    const [memOffset, memLength] = runState.stack.popN(2) as [bigint, bigint]
    const topicsCount = runState.opCode - 0xa0
    const topics = runState.stack.popN(topicsCount)
    const topicsBuf = topics.map(word32)
    let mem: Uint8Array = new Uint8Array(0)
    if (memLength !== 0n) mem = runState.memory.read(Number(memOffset), Number(memLength))
    runState.interpreter.log(mem, topicsCount, topicsBuf)
    // A traceTransfers run places its transfer logs among the contract's by this (opcodeObserver.ts).
    observerOf(runState.interpreter._evm)?.log()
  }
  for (let op = 0xa0; op <= 0xa4; op++) handlers.set(op, log)
}

/** `bytesToBigInt` of @ethereumjs/util (big-endian, empty is 0), without the hex string. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 32) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, 32)
    return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24)
  }
  let out = 0n
  for (let i = 0; i < bytes.length; i++) out = (out << 8n) | BigInt(bytes[i]!)
  return out
}

import { evmInternals } from './evmInternals.js'
import { defineGasLeft, numberGasApplied } from './numberGas.js'

/**
 * EVM memory that starts empty and grows in place of the 8 kB @ethereumjs 10.1
 * allocates for every frame up front.
 *
 * `new Memory()` zero-fills an 8 kB buffer outside the JS heap (about 3.5 µs
 * with the garbage collection it brings) for each frame, while a token call
 * or transfer touches a few hundred bytes. Frames built here start with an
 * empty buffer, and `extend` grows any memory to at least what is asked,
 * rounded to 1 kB and at least doubling (so a frame that grows word by word
 * still copies rarely). The memory's contents are the same as before: what
 * was never written reads as zero either way. Only the buffer's length past
 * the used words differs, which nothing reads: MSIZE and gas use
 * `memoryWordCount`, and the tracers (structLogger.ts, callTracer.ts) copy
 * memory into a zero-filled buffer of the used size.
 */

type MemoryLike = { _store: Uint8Array; extend(offset: number, size: number): void }
type Classes = {
  Memory: { prototype: MemoryLike }
  Stack: new (maxHeight?: number) => unknown
}

const GRAIN = 1024
const empty = new Uint8Array(0)
let applied = false

export function applyFrameMemory() {
  if (applied) return
  applied = true
  const { Memory } = evmInternals.memory as unknown as Classes
  Memory.prototype.extend = function (this: MemoryLike, offset: number, size: number) {
    if (size === 0) return
    // As the original: the end rounded up to a word; a larger store is kept.
    const end = Math.ceil((offset + size) / 32) * 32
    const store = this._store
    if (end <= store.length) return
    const length = Math.ceil(Math.max(end, store.length * 2) / GRAIN) * GRAIN
    const grown = zeroed(length)
    grown.set(store)
    this._store = grown
  }
}

/*
 * A small memory is a view into a shared, zero-filled slab rather than an
 * ArrayBuffer of its own: a buffer above 64 bytes lives outside the JS heap,
 * and allocating one (with its backing-store bookkeeping and, later, its
 * sweeping) cost ~3 % of a 100-call eth_simulateV1, more than the opcodes of
 * the frames that grew it. A region is handed out once and never reused, so
 * it reads as zeros exactly as a new buffer does; a slab is freed with the
 * last view into it. Larger memories get a buffer of their own.
 */
const SLAB = 256 * 1024
const SLAB_REGION = 4 * 1024
let slab = new ArrayBuffer(0)
let slabUsed = 0

/** A zero-filled array of `length` bytes (a multiple of GRAIN). */
function zeroed(length: number): Uint8Array {
  if (length > SLAB_REGION) return new Uint8Array(length)
  if (slabUsed + length > slab.byteLength) {
    slab = new ArrayBuffer(SLAB)
    slabUsed = 0
  }
  const region = new Uint8Array(slab, slabUsed, length)
  slabUsed += length
  return region
}

/** A fresh, empty EVM memory (the library's class, so `instanceof` and the prototype are unchanged). */
export function emptyMemory(): MemoryLike {
  const { Memory } = evmInternals.memory as unknown as Classes
  const memory = Object.create(Memory.prototype) as MemoryLike
  memory._store = empty
  return memory
}

type InterpreterClass = { prototype: object; new (...args: unknown[]): unknown }
type EvmLike = { common: { consensusType(): string } }
type EnvLike = { gasRefund: bigint; initialLogs?: unknown[] | undefined }

/**
 * `new Interpreter(...)` of @ethereumjs/evm 10.1 with an empty memory: the
 * constructor's body, field for field and in its order, except that
 * `_runState.memory` is `emptyMemory()` rather than `new Memory()`. A
 * proof-of-authority chain (the one check the constructor makes) goes to the
 * library's constructor.
 */
export function createInterpreter(
  Interpreter: InterpreterClass,
  evm: EvmLike,
  stateManager: unknown,
  blockchain: unknown,
  env: EnvLike,
  gasLeft: bigint,
  journal: unknown,
  performanceLogs: unknown,
  profilerOpts: unknown,
): unknown {
  const common = evm.common
  if (common.consensusType() === 'poa')
    return new Interpreter(evm, stateManager, blockchain, env, gasLeft, journal, performanceLogs, profilerOpts)
  const { Stack } = evmInternals.stack as unknown as Classes
  const interpreter = Object.create(Interpreter.prototype) as Record<string, unknown>
  interpreter.opDebuggers = {}
  interpreter._evm = evm
  interpreter._stateManager = stateManager
  interpreter.common = common
  const memory = emptyMemory()
  const stack = new Stack()
  // The library's fields in its order; the gas left as a number under number-gas (numberGas.ts).
  interpreter._runState = numberGasApplied()
    ? defineGasLeft({
        programCounter: 0,
        opCode: 0xfe,
        memory,
        memoryWordCount: 0n,
        highestMemCost: 0n,
        stack,
        code: new Uint8Array(0),
        validJumps: Uint8Array.from([]),
        cachedPushes: {},
        stateManager,
        blockchain,
        env,
        shouldDoJumpAnalysis: true,
        interpreter,
        gasRefund: env.gasRefund,
        gasLeftNumber: Number.NaN,
        gasLeftExact: 0n,
        stateGasSpilled: 0n,
        returnBytes: new Uint8Array(0),
      })
    : {
        programCounter: 0,
        opCode: 0xfe,
        memory,
        memoryWordCount: 0n,
        highestMemCost: 0n,
        stack,
        code: new Uint8Array(0),
        validJumps: Uint8Array.from([]),
        cachedPushes: {},
        stateManager,
        blockchain,
        env,
        shouldDoJumpAnalysis: true,
        interpreter,
        gasRefund: env.gasRefund,
        gasLeft,
        stateGasSpilled: 0n,
        returnBytes: new Uint8Array(0),
      }
  if (numberGasApplied()) (interpreter._runState as { gasLeft: bigint }).gasLeft = gasLeft
  interpreter.journal = journal
  interpreter._env = env
  interpreter._result = {
    logs: env.initialLogs ? [...env.initialLogs] : [],
    returnValue: undefined,
    selfdestruct: new Map(),
  }
  interpreter.profilerOpts = profilerOpts
  interpreter.performanceLogger = performanceLogs
  return interpreter
}

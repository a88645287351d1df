import type { ExecResult, InterpreterStep } from '@ethereumjs/evm'
import { bytesToHex, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { Hex } from 'viem'
import { evmListeners } from './evmListeners.js'

/** geth's struct logger switches (debug_trace* `config`). */
export type StructLoggerConfig = {
  disableStack: boolean
  disableStorage: boolean
  enableMemory: boolean
  enableReturnData: boolean
}

/** One executed opcode, in geth's legacy JSON shape (fields left out when empty, as geth's omitempty). */
export type StructLog = {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  stack?: Hex[]
  returnData?: Hex
  memory?: Hex[]
  storage?: Record<Hex, Hex>
  refund?: number
}

const word = (value: bigint | Uint8Array) =>
  bytesToHex(setLengthLeft(typeof value === 'bigint' ? hexBytes(value) : value, 32)) as Hex
const hexBytes = (value: bigint) => {
  const hex = value.toString(16)
  return Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'))
}
const SLOAD = 0x54
/** Opcodes that end a frame themselves: after them geth logs no extra STOP. */
const haltingOps = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff])
const SSTORE = 0x55

/**
 * geth's struct logger (`eth/tracers/logger`) on an ethereumjs VM: one entry
 * per executed opcode with pc, op, gas left before it, its cost (static plus
 * dynamic, a CALL's including the gas it forwards, as geth counts it), depth
 * (1-based), the stack, and on request memory (32-byte words), the last
 * call's return data and, at SLOAD/SSTORE, the storage slots of the running
 * contract seen so far in this transaction.
 *
 * `attach` starts collecting on the VM's EVM events; `take` returns the logs
 * of the transaction that ran since the last `take` and starts afresh.
 */
export function createStructLogger(vm: VM, config: StructLoggerConfig) {
  let logs: StructLog[] = []
  /** Slots each contract touched in this transaction, as geth's `storage` map. */
  let storage = new Map<string, Map<Hex, Hex>>()
  /** Return data of the last finished sub-call, per frame depth (RETURNDATA* sees it). */
  let returnData: Uint8Array[] = []

  const slotsOf = (address: string) => {
    let slots = storage.get(address)
    if (!slots) storage.set(address, (slots = new Map()))
    return slots
  }

  /** One log entry from the state before an opcode runs. */
  const entry = (at: {
    pc: number
    op: string
    gasLeft: bigint
    cost: bigint
    depth: number
    stack: bigint[]
    memory: Uint8Array
    memoryWordCount: bigint
    refund: bigint
  }): StructLog => {
    const log: StructLog = { pc: at.pc, op: at.op, gas: Number(at.gasLeft), gasCost: Number(at.cost), depth: at.depth + 1 }
    if (!config.disableStack) log.stack = at.stack.map((v) => `0x${v.toString(16)}` as Hex)
    const last = returnData[at.depth]
    if (config.enableReturnData && last && last.length > 0) log.returnData = bytesToHex(last) as Hex
    if (config.enableMemory && at.memoryWordCount > 0n) {
      const size = Number(at.memoryWordCount) * 32
      const memory = new Uint8Array(size)
      memory.set(at.memory.subarray(0, size))
      log.memory = []
      for (let i = 0; i < size; i += 32) log.memory.push(bytesToHex(memory.subarray(i, i + 32)) as Hex)
    }
    if (at.refund > 0n) log.refund = Number(at.refund)
    return log
  }

  const onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void) => {
    const frame = frames[frames.length - 1]
    if (frame) frame.lastOp = step.opcode.code
    const log = entry({
      pc: step.pc,
      op: step.opcode.name,
      gasLeft: step.gasLeft,
      cost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      depth: step.depth,
      stack: step.stack,
      memory: step.memory,
      memoryWordCount: step.memoryWordCount,
      refund: step.gasRefund,
    })
    logs.push(log)
    const code = step.opcode.code
    const n = step.stack.length
    if (config.disableStorage || (code !== SLOAD && code !== SSTORE) || n < (code === SSTORE ? 2 : 1)) return resolve?.()
    const address = step.address.toString()
    const slots = slotsOf(address)
    const key = word(step.stack[n - 1]!)
    if (code === SSTORE) {
      slots.set(key, word(step.stack[n - 2]!))
      log.storage = Object.fromEntries(slots)
      return resolve?.()
    }
    // SLOAD: the value as the state has it now, journal included.
    step.stateManager
      .getStorage(createAddressFromString(address), Buffer.from(key.slice(2), 'hex'))
      .then((value) => {
        slots.set(key, word(value))
        log.storage = Object.fromEntries(slots)
      })
      .finally(() => resolve?.())
  }
  /** The open call frames, innermost last: their depth and the last opcode each ran. */
  const frames: { depth: number; lastOp: number | undefined }[] = []
  const onBeforeMessage = (message: { depth: number }) => {
    frames.push({ depth: message.depth, lastOp: undefined })
    // A new frame starts with no return data.
    returnData[message.depth] = new Uint8Array()
  }
  const onAfterMessage = (result: { execResult: ExecResult }) => {
    const frame = frames.pop()
    if (!frame) return
    const { runState, exceptionError } = result.execResult
    // geth reads past the end of the code as STOP and logs that step; ethereumjs
    // just leaves its loop. Log it the same way where the frame ran off its code.
    if (
      runState !== undefined &&
      exceptionError === undefined &&
      frame.lastOp !== undefined &&
      !haltingOps.has(frame.lastOp) &&
      runState.programCounter >= runState.code.length
    )
      logs.push(
        entry({
          pc: runState.programCounter,
          op: 'STOP',
          gasLeft: runState.gasLeft,
          cost: 0n,
          depth: frame.depth,
          stack: runState.stack.getStack(),
          memory: runState.memory._store,
          memoryWordCount: runState.memoryWordCount,
          refund: runState.gasRefund,
        }),
      )
    // The caller now sees this frame's output as its return data.
    if (frame.depth > 0) returnData[frame.depth - 1] = result.execResult.returnValue
  }

  return {
    ...evmListeners(vm, { step: onStep, beforeMessage: onBeforeMessage, afterMessage: onAfterMessage }),
    /** The logs since the last take; resets for the next transaction. */
    take(): StructLog[] {
      const out = logs
      logs = []
      storage = new Map()
      returnData = []
      frames.length = 0
      return out
    },
  }
}

import { EVMError } from '@ethereumjs/evm'
import { evmInternals } from './evmInternals.js'

/**
 * The dynamic gas handlers of @ethereumjs/evm 10.1 that only compute (memory
 * expansion, copy and hash words, log topics, exponent bytes), as plain
 * functions instead of `async` ones.
 *
 * Every dynamic gas handler of the library is an `async function`, so each
 * MSTORE, MLOAD, KECCAK256, LOG, RETURN ... handed the interpreter loop a
 * promise to await (interpreterLoop.ts awaits only what is a promise): a
 * suspended loop and microtask turns per opcode for a few additions. A token
 * transfer runs ~17 of them among its ~240 opcodes. Here they return their
 * bigint at once; the steps, their order, the values and the errors they
 * throw are the library's (a throw reaches the loop's catch as the rejection
 * did). Two shortcuts of the same answer: the memory-expansion check compares
 * word counts as numbers when offset and length are below 2^32 (an expansion
 * itself, and anything larger, goes through the library's `subMemUsage`), and
 * the stack is read in place of `peek`'s array.
 *
 * CODECOPY keeps the original where code chunks are charged (EIP-6800/7864,
 * `chargeCodeAccesses`). The handlers that read state (BALANCE, EXTCODE*,
 * CALL*, CREATE*, SELFDESTRUCT, SSTORE) stay as they are.
 */

type Stack = { _store: bigint[]; _len: number }
type RunState = {
  stack: Stack
  opCode: number
  memoryWordCount: bigint
  env: { eof?: unknown; chargeCodeAccesses?: boolean }
  interpreter: { getReturnDataSize(): bigint; isStatic(): boolean }
}
type Common = { param(name: string): bigint; isActivatedEIP(eip: number): boolean }
type GasHandler = (runState: RunState, gas: bigint, common: Common) => bigint | Promise<bigint>

const LIMIT = 1n << 32n

/** The `n`th stack item from the top (0 is the top), as `stack.peek(n + 1)[n]` reads it, with its underflow error. */
function peekAt(stack: Stack, n: number): bigint {
  const index = stack._len - 1 - n
  if (index < 0) throw new EVMError(EVMError.errorMessages.STACK_UNDERFLOW)
  return stack._store[index]!
}

/** `divCeil(value, 32n)` of the library for a non-negative value. */
const words = (value: bigint) => (value + 31n) / 32n

let applied = false

export function applySyncGasHandlers() {
  if (applied) return
  applied = true
  const { dynamicGasHandlers } = evmInternals.gas as { dynamicGasHandlers: Map<number, GasHandler> }
  const { subMemUsage } = evmInternals.util as {
    subMemUsage(runState: RunState, offset: bigint, length: bigint, common: Common): bigint
  }
  const codeCopy = dynamicGasHandlers.get(0x39)!

  /**
   * `subMemUsage`: 0 when the access needs no new memory word (checked in
   * numbers while offset and length are below 2^32), else the library's.
   */
  function memoryCost(runState: RunState, offset: bigint, length: bigint, common: Common): bigint {
    if (length === 0n) return 0n
    if (offset < LIMIT && length < LIMIT && Math.ceil((Number(offset) + Number(length)) / 32) <= Number(runState.memoryWordCount))
      return 0n
    return subMemUsage(runState, offset, length, common)
  }

  /** `gas + cost`, the same bigint when the cost is 0 (as the library's `gas += 0n` leaves the value). */
  const plus = (gas: bigint, cost: bigint) => (cost === 0n ? gas : gas + cost)

  // EXP
  dynamicGasHandlers.set(0x0a, (runState, gas, common) => {
    peekAt(runState.stack, 1)
    const exponent = runState.stack._store[runState.stack._len - 2]!
    if (exponent === 0n) return gas
    // The library's ceil(bit length / 8), from the hex digits (two per byte).
    const byteLength = (exponent.toString(16).length + 1) >> 1
    if (byteLength < 1 || byteLength > 32) throw new EVMError(EVMError.errorMessages.OUT_OF_RANGE)
    return gas + BigInt(byteLength) * common.param('expByteGas')
  })

  // KECCAK256
  dynamicGasHandlers.set(0x20, (runState, gas, common) => {
    const length = peekAt(runState.stack, 1)
    const offset = runState.stack._store[runState.stack._len - 1]!
    gas = plus(gas, memoryCost(runState, offset, length, common))
    return gas + common.param('keccak256WordGas') * words(length)
  })

  /** The copies: memory for the destination, then a copy charge per word when there is anything to copy. */
  const copyGas = (runState: RunState, gas: bigint, common: Common) => {
    const length = peekAt(runState.stack, 2)
    const memOffset = runState.stack._store[runState.stack._len - 1]!
    gas = plus(gas, memoryCost(runState, memOffset, length, common))
    if (length !== 0n) gas += common.param('copyGas') * words(length)
    return gas
  }
  // CALLDATACOPY
  dynamicGasHandlers.set(0x37, copyGas)
  // CODECOPY, but where code chunks are charged
  dynamicGasHandlers.set(0x39, (runState, gas, common) => {
    if ((common.isActivatedEIP(6800) || common.isActivatedEIP(7864)) && runState.env.chargeCodeAccesses === true)
      return codeCopy(runState, gas, common)
    return copyGas(runState, gas, common)
  })
  // RETURNDATACOPY: reading past the return data is out of gas (but in EOF code), before the memory is charged.
  dynamicGasHandlers.set(0x3e, (runState, gas, common) => {
    const length = peekAt(runState.stack, 2)
    const dataOffset = runState.stack._store[runState.stack._len - 2]!
    if (dataOffset + length > runState.interpreter.getReturnDataSize() && runState.env.eof === undefined)
      throw new EVMError(EVMError.errorMessages.OUT_OF_GAS)
    return copyGas(runState, gas, common)
  })

  // MLOAD, MSTORE, MSTORE8
  const word = (size: bigint): GasHandler => (runState, gas, common) =>
    plus(gas, memoryCost(runState, peekAt(runState.stack, 0), size, common))
  dynamicGasHandlers.set(0x51, word(32n))
  dynamicGasHandlers.set(0x52, word(32n))
  dynamicGasHandlers.set(0x53, word(1n))

  // MCOPY: words copied, then the source's memory, then the destination's.
  dynamicGasHandlers.set(0x5e, (runState, gas, common) => {
    const length = peekAt(runState.stack, 2)
    const src = runState.stack._store[runState.stack._len - 2]!
    const dst = runState.stack._store[runState.stack._len - 1]!
    gas += 3n * words(length)
    gas = plus(gas, memoryCost(runState, src, length, common))
    return plus(gas, memoryCost(runState, dst, length, common))
  })

  // LOG0..LOG4
  const log: GasHandler = (runState, gas, common) => {
    if (runState.interpreter.isStatic()) throw new EVMError(EVMError.errorMessages.STATIC_STATE_CHANGE)
    const memLength = peekAt(runState.stack, 1)
    const memOffset = runState.stack._store[runState.stack._len - 1]!
    const topicsCount = runState.opCode - 0xa0
    if (topicsCount < 0 || topicsCount > 4) throw new EVMError(EVMError.errorMessages.OUT_OF_RANGE)
    gas = plus(gas, memoryCost(runState, memOffset, memLength, common))
    return gas + (common.param('logTopicGas') * BigInt(topicsCount) + memLength * common.param('logDataGas'))
  }
  for (let op = 0xa0; op <= 0xa4; op++) dynamicGasHandlers.set(op, log)

  // RETURN, REVERT
  const output: GasHandler = (runState, gas, common) => {
    const length = peekAt(runState.stack, 1)
    return plus(gas, memoryCost(runState, runState.stack._store[runState.stack._len - 1]!, length, common))
  }
  dynamicGasHandlers.set(0xf3, output)
  dynamicGasHandlers.set(0xfd, output)
}

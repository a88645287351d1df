/**
 * A frame's gas left as a JS number, for the interpreter loop.
 *
 * @ethereumjs/evm 10.1 keeps `runState.gasLeft` as a bigint and subtracts
 * each opcode's fee from it (`useGas`): a new heap bigint per opcode, most of
 * what the interpreter allocated on a token transfer (~240 opcodes). Gas
 * counts fit a double exactly below 2^53, so frames that devnet builds
 * (frameMemory.ts's createInterpreter) hold their gas in a number,
 * `gasLeftNumber`, which the loop (interpreterLoop.ts) charges directly, and
 * `gasLeft` becomes an accessor over it: every reader and writer of the
 * library (GAS, the CALL family's 63/64, the SSTORE sentry, `useGas` after a
 * child call, the frame's result) still sees and sets the same bigint.
 *
 * A value outside ±(2^53 - 1) (a call given more gas than that, or the
 * transient negative of an out-of-gas subtraction) is held exactly in
 * `gasLeftExact`, with `gasLeftNumber` NaN; the loop then charges through the
 * library's `useGas`, bigint for bigint, as it does for any charge its number
 * arithmetic cannot settle (out of gas included).
 */

import { evmInternals } from './evmInternals.js'

export type NumberGasState = { gasLeftNumber: number; gasLeftExact: bigint }

const MAX = BigInt(Number.MAX_SAFE_INTEGER)

/** `gasLeft` over `gasLeftNumber` (or `gasLeftExact` when that is NaN): one descriptor shared by every frame. */
const gasLeftAccessor: PropertyDescriptor = {
  get(this: NumberGasState): bigint {
    const n = this.gasLeftNumber
    return n === n ? BigInt(n) : this.gasLeftExact
  },
  set(this: NumberGasState, value: bigint) {
    if (value <= MAX && value >= -MAX) this.gasLeftNumber = Number(value)
    else {
      this.gasLeftNumber = Number.NaN
      this.gasLeftExact = value
    }
  },
  enumerable: true,
  configurable: true,
}

/** Gives a run state holding `gasLeftNumber` / `gasLeftExact` its `gasLeft` accessor. */
export function defineGasLeft<T extends NumberGasState>(runState: T): T & { gasLeft: bigint } {
  return Object.defineProperty(runState, 'gasLeft', gasLeftAccessor) as T & { gasLeft: bigint }
}

type Interp = {
  _runState: Partial<NumberGasState>
  _evm: { DEBUG: boolean }
  useGas(amount: bigint, context?: unknown): void
}

let applied = false

/**
 * Installs the number gas: frames built by createInterpreter from now on hold
 * their gas as a number, and `Interpreter.prototype.useGas` charges such a
 * frame in numbers when the charge leaves it at 0 or more (the library's
 * useGas does the rest: out of gas, a gas left beyond 2^53, DEBUG logging, a
 * frame the library built).
 */
export function applyNumberGas() {
  if (applied) return
  applied = true
  const { Interpreter } = evmInternals.interpreter as { Interpreter: { prototype: Interp } }
  const useGas = Interpreter.prototype.useGas
  Interpreter.prototype.useGas = function (this: Interp, amount: bigint, context?: unknown) {
    const runState = this._runState
    const number = runState.gasLeftNumber
    if (number !== undefined && !this._evm.DEBUG) {
      // Exact: both are safe integers when the difference is >= 0 (a fee above 2^53 leaves it negative, even rounded).
      const left = number - Number(amount)
      if (left >= 0) {
        runState.gasLeftNumber = left
        return
      }
    }
    useGas.call(this, amount, context)
  }
}

/** Whether frames hold their gas as a number (the `number-gas` patch is applied). */
export function numberGasApplied(): boolean {
  return applied
}

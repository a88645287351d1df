import { EVMError } from '@ethereumjs/evm'
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'

/**
 * The interpreter loop of @ethereumjs/evm 10.1 without a promise per opcode.
 *
 * ethereumjs runs every opcode as `await this.runStep(op)`, an async
 * function that itself awaits the (mostly synchronous) dynamic gas handler:
 * two or three promises and microtask turns per opcode, even for an ADD.
 * On a token balanceOf (136 opcodes) that machinery cost more than the
 * opcodes. This loop does the same steps in the same order (gas handler,
 * invalid-opcode check, base fee, program counter, pending EIP-7928 trap,
 * handler) and awaits only what really returns a promise: a gas handler or
 * an opcode that reads state.
 *
 * It runs only where the original has nothing else to do per step: no
 * `step` listeners (tracers, the struct logger), no DEBUG logging, no
 * profiler, no EOF container, no stateless (EIP-6800/7864) code-chunk gas.
 * Everything else goes to the original `run`, unchanged.
 */

type OpInfo = { feeBigInt: bigint; dynamicGas: boolean; isInvalid: boolean; isAsync: boolean; code: number }
type OpEntry = {
  opcodeInfo: OpInfo
  opHandler: (runState: RunState, common: unknown) => unknown
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>
}
type RunState = {
  programCounter: number
  opCode: number
  code: Uint8Array
  validJumps: Uint8Array
  cachedPushes: Record<number, bigint>
  shouldDoJumpAnalysis: boolean
  gasLeft: bigint
  eip7928PostTargetCallOog?: unknown
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
  env: { accessWitness?: { commit(): void; revert(): void } | undefined }
}
type Interp = {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(name: string): number }; _opcodeMap: OpEntry[] }
  common: { isActivatedEIP(eip: number): boolean }
  profilerOpts?: { enabled?: boolean } | undefined
  _env: { chargeCodeAccesses?: boolean }
  useGas(amount: bigint, context: OpInfo): void
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: OpEntry[] }
}
type Run = (this: Interp, code: Uint8Array, opts?: { pc?: number }) => Promise<{ runState: RunState; exceptionError: unknown }>

let applied = false

export function applyInterpreterLoop() {
  if (applied) return
  applied = true
  const { Interpreter } = evmInternals.interpreter as { Interpreter: { prototype: Interp & { run: Run } } }
  const { consumeEip7928PostTargetCallOog } = evmInternals.eip7928 as {
    consumeEip7928PostTargetCallOog(runState: RunState): void
  }
  const original = Interpreter.prototype.run
  const outOfGas = EVMError.errorMessages.OUT_OF_GAS
  const stop = EVMError.errorMessages.STOP

  /**
   * The rest of a step after its gas is known, the original runStep from the
   * invalid-opcode check to the handler's call: returns what the handler
   * returned (a promise for an opcode that reads state).
   */
  function execute(interp: Interp, runState: RunState, entry: OpEntry, gas: bigint): unknown {
    const info = entry.opcodeInfo
    if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
    // In numbers under number-gas (numberGas.ts).
    interp.useGas(gas, info)
    runState.programCounter++
    consumeEip7928PostTargetCallOog(runState)
    return entry.opHandler(runState, interp.common)
  }

  Interpreter.prototype.run = async function (this: Interp, code, opts = {}) {
    const evm = this._evm
    if (
      (code[0] === 0xef && this.common.isActivatedEIP(3540)) ||
      this.profilerOpts?.enabled === true ||
      evm.DEBUG ||
      evm.events.listenerCount('step') > 0 ||
      ((this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)) && this._env.chargeCodeAccesses === true)
    )
      return original.call(this, code, opts)
    const runState = this._runState
    runState.code = code
    runState.programCounter = opts.pc ?? runState.programCounter
    const pc = runState.programCounter
    if (pc !== 0 && (pc < 0 || pc >= code.length)) throw EthereumJSErrorWithoutCode('Internal error: program counter not in range')
    const opcodeMap = evm._opcodeMap
    let cached: OpEntry[] | undefined
    let err: unknown
    while (runState.programCounter < code.length) {
      const counter = runState.programCounter
      let entry: OpEntry
      let opCode: number
      if (cached === undefined) {
        opCode = code[counter]!
        if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
          const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(code)
          runState.validJumps = jumps
          runState.cachedPushes = pushes
          runState.shouldDoJumpAnalysis = false
          cached = opcodesCached
        }
        // Before the analysis the original looks the opcode up by its byte, at this step too.
        entry = opcodeMap[opCode]!
      } else {
        entry = cached[counter]!
        opCode = entry.opcodeInfo.code
      }
      runState.opCode = opCode
      // The gas handler's and the opcode's promises are awaited here, in the loop, not chained to the step:
      // a promise and a closure less per state read.
      try {
        const info = entry.opcodeInfo
        let gas = info.feeBigInt
        if (info.dynamicGas) {
          const dynamic = entry.gasHandler(runState, gas, this.common)
          gas = dynamic instanceof Promise ? await dynamic : dynamic
        }
        const result = execute(this, runState, entry, gas)
        if (info.isAsync && result instanceof Promise) await result
        runState.env.accessWitness?.commit()
      } catch (e) {
        runState.env.accessWitness?.revert()
        if (!(typeof e === 'object' && e !== null && 'errorType' in e && (e as { errorType: unknown }).errorType === 'EVMError')) throw e
        if ((e as unknown as { error: unknown }).error !== stop) err = e
        break
      }
    }
    if (err === undefined && runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true && runState.gasLeft > 0n) {
      runState.gasLeft = 0n
      err = new EVMError(outOfGas)
    }
    return { runState, exceptionError: err }
  }
}

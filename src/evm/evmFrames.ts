import { EVM, EVMError, createEIP7708TransferLog } from '@ethereumjs/evm'
import { Account, createZeroAddress, equalsBytes } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'
import { createInterpreter } from './frameMemory.js'

/**
 * The message-call frame of @ethereumjs/evm 10.1 (`_executeCall` and
 * `runInterpreter`) without its object spreads.
 *
 * Every frame copied its message with `{ ...{ codeAddress }, ...message,
 * gasLimit }` and built its result as `{ ...result, runState: {
 * ...runState, ...result, ...env } }`. V8 (Node 20) copies into a literal
 * that already has properties through a slow runtime path, microseconds per
 * spread: on a token balanceOf those two lines were a tenth of the whole
 * eth_call. Here the message copy is an object built field by field (the
 * fields `runInterpreter` reads, with the same values), and the merged
 * `runState`, which nothing on the call path reads (only tracers do), is
 * built on first read from the same parts, so it holds what it held before.
 *
 * The steps and their order are the original's. Frames that need the
 * branches left out here go to the original: EIP-7864 / EIP-6800 (stateless
 * witnesses), EIP-2780 (Amsterdam top-frame charges), the profiler and DEBUG
 * logging.
 *
 * One step is left out where it has no effect: a frame without value puts
 * the caller and callee back exactly as it read them (an RLP encoding and a
 * cache entry each, twice per frame); for accounts that exist only the
 * touch is kept. An account that does not exist is still written, as an
 * empty account, exactly as before.
 */

type Address = ReturnType<typeof createZeroAddress>
type Message = {
  to: Address
  caller: Address
  value: bigint
  gasLimit: bigint
  data: Uint8Array
  code?: Uint8Array | ((...args: unknown[]) => unknown)
  codeAddress: Address
  isStatic: boolean
  isCreate?: boolean
  isCompiled: boolean
  depth: number
  delegatecall: boolean
  gasRefund: bigint
  chargeCodeAccesses?: boolean
  blobVersionedHashes?: Uint8Array[]
  accessWitness?: { commit(): void }
  createdAddresses?: Set<string>
  selfdestruct?: Map<string, unknown>
}
type Result = Record<string, unknown> & { logs?: unknown[]; returnValue?: Uint8Array; executionGasUsed: bigint; gasRefund?: bigint }
type Evm = {
  common: { isActivatedEIP(eip: number): boolean }
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  blockchain: unknown
  journal: { touchAddress(address: Address): void }
  performanceLogger: unknown
  DEBUG: boolean
  _tx: { gasPrice: bigint; origin?: Address }
  _block?: unknown
  _optsCached: { profiler?: { enabled?: boolean } }
  _reduceSenderBalance(account: Account, message: Message): Promise<void>
  _addToBalance(account: Account, message: Message): Promise<void>
  _loadCode(message: Message): Promise<void>
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<Result>
  postMessageCleanup(): void
  runInterpreter(message: Message, opts?: { initialLogs?: unknown[] | undefined }): Promise<Result>
}
type Interp = {
  _result: Record<string, unknown>
  _env: Record<string, unknown>
  run(code: unknown, opts: object): Promise<{ runState: Record<string, unknown> & { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: EVMError }>
}

/** Where a frame's result keeps the parts of the `runState` the original merged at once. */
const mergeParts = Symbol('mergeParts')
type MergeParts = { runState: object; result: object; env: object; merged: Record<string, unknown> | undefined }

/*
 * A frame result's `runState`, merged on first read: one accessor shared by
 * every result (an object literal with its own getter and setter is built in
 * V8's slow dictionary mode, a new pair of closures per frame, and every read
 * of the result's fields after it was a dictionary lookup).
 */
const mergedRunState: PropertyDescriptor = {
  get(this: { [mergeParts]: MergeParts }): Record<string, unknown> {
    const parts = this[mergeParts]
    return (parts.merged ??= { ...parts.runState, ...parts.result, ...parts.env })
  },
  set(this: { [mergeParts]: MergeParts }, value: Record<string, unknown>) {
    this[mergeParts].merged = value
  },
  enumerable: true,
  configurable: true,
}

let applied = false

export function applyFramePatches() {
  if (applied) return
  applied = true
  const { Interpreter } = evmInternals.interpreter as {
    Interpreter: new (...args: unknown[]) => Interp
  }
  const { defaultBlock } = evmInternals.evm as { defaultBlock(): unknown }
  const proto = EVM.prototype as unknown as Evm & {
    _executeCall(this: Evm, message: Message): Promise<{ execResult: Result }>
  }
  const originalCall = proto._executeCall
  const originalInterpreter = proto.runInterpreter
  const revert = EVMError.errorMessages.REVERT
  const invalidEof = EVMError.errorMessages.INVALID_EOF_FORMAT
  const fastFrames = (evm: Evm) =>
    !evm.DEBUG &&
    evm._optsCached.profiler?.enabled !== true &&
    !evm.common.isActivatedEIP(7864) &&
    !evm.common.isActivatedEIP(6800) &&
    !evm.common.isActivatedEIP(2780) &&
    !evm.common.isActivatedEIP(7928)

  proto._executeCall = async function (this: Evm, message: Message) {
    if (!fastFrames(this)) return originalCall.call(this, message)
    const gasLimit = message.gasLimit
    const found = await this.stateManager.getAccount(message.caller)
    const account = found ?? new Account()
    let errorMessage: unknown
    // A frame without value puts back each existing account as it read it: only the touch (EIP-161) has an effect.
    const unchanged = message.value === 0n
    if (!message.delegatecall) {
      try {
        if (unchanged && found !== undefined) this.journal.touchAddress(message.caller)
        else await this._reduceSenderBalance(account, message)
      } catch (e) {
        errorMessage = e
      }
    }
    const foundTo = await this.stateManager.getAccount(message.to)
    const toAccount = foundTo ?? new Account()
    if (!message.delegatecall) {
      try {
        if (unchanged && foundTo !== undefined) this.journal.touchAddress(message.to)
        else await this._addToBalance(toAccount, message)
      } catch (e) {
        errorMessage = e
      }
    }
    await this._loadCode(message)
    let exit = false
    if (!message.code || (typeof message.code !== 'function' && message.code.length === 0)) exit = true
    if (errorMessage !== undefined) exit = true
    let eip7708Log: unknown
    if (
      this.common.isActivatedEIP(7708) &&
      !message.delegatecall &&
      message.value > 0n &&
      !equalsBytes(message.caller.bytes, message.to.bytes) &&
      errorMessage === undefined
    )
      eip7708Log = createEIP7708TransferLog(message.caller, message.to, message.value)
    if (exit) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: message.gasLimit - gasLimit,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: eip7708Log ? [eip7708Log] : undefined,
        },
      }
    }
    let result: Result
    if (message.isCompiled) {
      result = await this.runPrecompile(message.code, message.data, gasLimit)
      if (eip7708Log !== undefined) result.logs = result.logs !== undefined ? [eip7708Log, ...result.logs] : [eip7708Log]
      result.gasRefund = message.gasRefund
    } else {
      const opts = { initialLogs: eip7708Log ? [eip7708Log] : undefined }
      // The original hands runInterpreter a copy of the message with this gas limit (`{ ...message, gasLimit }`);
      // nothing keeps that copy, so the message itself is read with the gas limit beside it.
      result =
        this.runInterpreter === fastInterpreter
          ? await interpret(this, message, gasLimit, opts)
          : await this.runInterpreter({ ...{ codeAddress: message.codeAddress }, ...message, gasLimit } as Message, opts)
    }
    if (message.depth === 0) this.postMessageCleanup()
    result.executionGasUsed += message.gasLimit - gasLimit
    return { execResult: result }
  }

  /** runInterpreter's body for `message` run with `gasLimit` (the original's `message.gasLimit` after the caller's copy). */
  async function interpret(evm: Evm, message: Message, gasLimit: bigint, opts: { initialLogs?: unknown[] | undefined }) {
    const contract = (await evm.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account()
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: evm._tx.gasPrice,
      origin: evm._tx.origin ?? message.caller ?? createZeroAddress(),
      block: evm._block ?? defaultBlock(),
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    }
    // The library's constructor but with an empty memory that grows as used (frameMemory.ts).
    const interpreter = createInterpreter(
      Interpreter as never, evm as never, evm.stateManager, evm.blockchain, env, gasLimit, evm.journal, evm.performanceLogger,
      evm._optsCached.profiler,
    ) as Interp
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses
    const interpreterRes = await interpreter.run(message.code, opts)
    let result = interpreter._result
    const runState = interpreterRes.runState
    let gasUsed = gasLimit - runState.gasLeft
    const exception = interpreterRes.exceptionError
    if (exception) {
      if (exception.error !== revert && exception.error !== invalidEof) gasUsed = gasLimit
      // The original: `{ ...result, logs: [], selfdestruct: new Map(), createdAddresses: new Set() }`.
      result = { logs: [], returnValue: result.returnValue, selfdestruct: new Map(), createdAddresses: new Set() }
    }
    message.accessWitness?.commit()
    const out: Result = {
      logs: result.logs as unknown[],
      returnValue: (result.returnValue as Uint8Array | undefined) ?? new Uint8Array(0),
      selfdestruct: result.selfdestruct,
      exceptionError: exception,
      gas: runState.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: runState.gasRefund,
      stateGasSpilled: runState.stateGasSpilled,
      [mergeParts]: { runState, result, env: interpreter._env, merged: undefined },
    }
    // Built when read, from the parts the original merged at once.
    Object.defineProperty(out, 'runState', mergedRunState)
    if ('createdAddresses' in result) out.createdAddresses = result.createdAddresses
    return out
  }

  proto.runInterpreter = async function (this: Evm, message: Message, opts: { initialLogs?: unknown[] | undefined } = {}) {
    if (!fastFrames(this)) return originalInterpreter.call(this, message, opts)
    return interpret(this, message, message.gasLimit, opts)
  }
  const fastInterpreter = proto.runInterpreter
}


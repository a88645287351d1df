import { Common } from '@ethereumjs/common'
import { evmInternals } from './evmInternals.js'

/**
 * Two memos for hot paths of @ethereumjs 10.1 that recompute the same answer
 * on every call. Neither changes a result; both were measured on eth_call of
 * the payment token (balanceOf), where together they were ~30 % of the time.
 *
 * 1. Jump-destination analysis. The interpreter scans the whole bytecode
 *    (JUMPDESTs, PUSH values, opcode table) each time a frame first jumps:
 *    for the ~20 kB token that is most of a balanceOf call. The result depends
 *    only on the code bytes and the opcode table of the EVM's hardfork, and the
 *    interpreter only reads it, so it is memoized per code array (the state
 *    manager's code cache hands out the same array for an address until the
 *    code changes) and per opcode table.
 * 2. `Common.isActivatedEIP` is `Array.includes` over ~80 EIP numbers, called
 *    several times per opcode; a Set built from the same array answers the
 *    same. The array is replaced (never mutated) when the hardfork or EIPs
 *    change, so the Set is rebuilt whenever the array is a new one. Set on
 *    devnet's own Commons only (an own property, which `Common.copy` keeps),
 *    so `Common.prototype` stays as published.
 */

type JumpAnalysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
type InterpreterProto = {
  _getValidJumpDestinations(this: { _evm: { _opcodeMap?: object; _opcodes?: object } }, code: Uint8Array): JumpAnalysis
}

let appliedJumps = false

export function applyJumpDestinationMemo() {
  if (appliedJumps) return
  appliedJumps = true
  const { Interpreter } = evmInternals.interpreter as { Interpreter: { prototype: InterpreterProto } }
  const analyse = Interpreter.prototype._getValidJumpDestinations
  const memo = new WeakMap<object, WeakMap<Uint8Array, JumpAnalysis>>()
  Interpreter.prototype._getValidJumpDestinations = function (code) {
    const table = this._evm._opcodeMap ?? this._evm._opcodes ?? memo
    let byCode = memo.get(table)
    if (!byCode) memo.set(table, (byCode = new WeakMap()))
    let found = byCode.get(code)
    if (!found) byCode.set(code, (found = analyse.call(this, code)))
    return found
  }
}

type EipMemo = { _activatedEIPsCache: number[]; __eipArray?: number[]; __eipSet?: Set<number> }

function isActivatedEIP(this: Common & EipMemo, eip: number) {
  const array = this._activatedEIPsCache
  if (this.__eipArray !== array) {
    this.__eipSet = new Set(array)
    this.__eipArray = array
  }
  return this.__eipSet!.has(eip)
}

/** Gives `common` (and every copy made of it from now on) the Set lookup of its active EIPs. */
export function useEipSet(common: Common): void {
  ;(common as { isActivatedEIP: Common['isActivatedEIP'] }).isActivatedEIP = isActivatedEIP
}


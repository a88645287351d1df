import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { evmInternals } from '../../src/evm/evmInternals.js'
import { createInterpreter } from '../../src/evm/frameMemory.js'
import { type NumberGasState, defineGasLeft } from '../../src/evm/numberGas.js'
import { engineModeOf } from '../../src/evm/patches/registry.js'
import './installEngine.js'

/*
 * A frame's gas as a number (numberGas.ts): `gasLeft` must read back every
 * bigint written to it, inside and outside ±(2^53 - 1), and useGas must
 * charge, run out of gas and zero the gas exactly as the library's bigint
 * arithmetic does. (The differential suite's gas edges compare whole calls
 * against stock @ethereumjs.)
 */
const state = (): NumberGasState & { gasLeft: bigint } => defineGasLeft({ gasLeftNumber: 0, gasLeftExact: 0n })
const max = BigInt(Number.MAX_SAFE_INTEGER)

describe('number gas', () => {
  it('gasLeft reads back what was written, in a number within ±(2^53 - 1) and exactly beyond', () => {
    const s = state()
    for (const value of [0n, 1n, 21_000n, max, -max, max + 1n, -max - 1n, 1n << 64n, -(1n << 300n), 2n ** 1100n]) {
      s.gasLeft = value
      expect(s.gasLeft).toBe(value)
      expect(Number.isNaN(s.gasLeftNumber)).toBe(value > max || value < -max)
    }
    s.gasLeft = 5n
    expect(s.gasLeftNumber).toBe(5)
    expect({ ...s }.gasLeft).toBe(5n)
  })

  it.skipIf(engineModeOf() === 'stock')('useGas charges in numbers and runs out of gas as the bigint arithmetic does', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const { Interpreter } = evmInternals.interpreter as { Interpreter: new (...args: unknown[]) => unknown }
    const evm = vm.evm as unknown as Record<string, unknown>
    const frame = (gas: bigint) =>
      createInterpreter(Interpreter as never, evm as never, evm.stateManager, evm.blockchain, { gasRefund: 0n } as never, gas, evm.journal, undefined, undefined) as {
        _runState: NumberGasState & { gasLeft: bigint }
        useGas(amount: bigint): void
        getGasLeft(): bigint
      }
    const outOfGas = (f: () => void) => expect(f).toThrow(expect.objectContaining({ error: 'out of gas' }))
    for (const start of [100n, max, max + 5n, 1n << 60n]) {
      const f = frame(start)
      f.useGas(3n)
      expect(f.getGasLeft()).toBe(start - 3n)
      f.useGas(start - 3n)
      expect(f.getGasLeft()).toBe(0n)
      outOfGas(() => f.useGas(1n))
      expect(f.getGasLeft()).toBe(0n)
    }
    // A fee far beyond 2^53 (memory expansion to 2^255) from a small and from a huge gas left.
    for (const start of [30_000n, 1n << 60n]) {
      const f = frame(start)
      outOfGas(() => f.useGas(1n << 500n))
      expect(f._runState.gasLeft).toBe(0n)
      expect(f._runState.gasLeftNumber).toBe(0)
    }
    // Beyond 2^53 a charge goes through the bigints until the gas left comes back within range.
    const f = frame(max + 2n)
    f.useGas(1n)
    expect(Number.isNaN(f._runState.gasLeftNumber)).toBe(true)
    f.useGas(1n)
    expect(f._runState.gasLeftNumber).toBe(Number.MAX_SAFE_INTEGER)
  })
})

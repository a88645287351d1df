import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { evmInternals } from '../../src/evm/evmInternals.js'
import { createInterpreter, emptyMemory } from '../../src/evm/frameMemory.js'
import { numberGasApplied } from '../../src/evm/numberGas.js'
import './installEngine.js'

/*
 * Frame memory (frameMemory.ts) starts empty and grows on demand; it must read
 * and write exactly like a flat zero-filled memory, and the interpreter built
 * around it must be the library constructor's object but for the memory.
 */

type Mem = { _store: Uint8Array; write(o: number, s: number, v: Uint8Array): void; read(o: number, s: number, avoidCopy?: boolean): Uint8Array; extend(o: number, s: number): void }

function random(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))

describe('frame memory', () => {
  it('reads and writes as a flat zero-filled memory, across growth', () => {
    const next = random(7)
    const memory = emptyMemory() as Mem
    const flat = new Uint8Array(1 << 17)
    expect(memory._store.length).toBe(0)
    for (let i = 0; i < 3000; i++) {
      // Offsets near the start (Solidity's scratch space) and scattered up to 100 kB, sizes around word and kB edges.
      const offset = next() < 0.5 ? Math.floor(next() * 300) : Math.floor(next() * 100_000)
      const size = [0, 1, 31, 32, 33, 64, 1023, 1024, 1025, 5000][Math.floor(next() * 10)]!
      if (next() < 0.5) {
        const value = Uint8Array.from({ length: size }, () => Math.floor(next() * 256))
        memory.write(offset, size, value)
        flat.set(value, offset)
      } else {
        const read = memory.read(offset, size, next() < 0.5)
        expect(same(read, flat.subarray(offset, offset + size))).toBe(true)
      }
      // Never shorter than the last byte touched, rounded to a word, as the library keeps it.
      if (size > 0) expect(memory._store.length).toBeGreaterThanOrEqual(Math.ceil((offset + size) / 32) * 32)
    }
    const store = memory._store
    expect(same(store.subarray(0, flat.length), flat.subarray(0, store.length))).toBe(true)
    expect(store.subarray(flat.length).every((byte) => byte === 0)).toBe(true)
  })

  it('a read of nothing leaves an empty memory empty', () => {
    const memory = emptyMemory() as Mem
    expect(memory.read(100, 0)).toEqual(new Uint8Array(0))
    memory.extend(5000, 0)
    expect(memory._store.length).toBe(0)
  })
})

describe('createInterpreter', () => {
  it("builds the library constructor's interpreter, with an empty memory of the library's class", async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const { Interpreter } = evmInternals.interpreter as { Interpreter: new (...args: unknown[]) => Record<string, unknown> }
    const evm = vm.evm as unknown as Record<string, unknown>
    const env = { gasRefund: 5n, initialLogs: [['log']], address: 'x' }
    const args = [evm, evm.stateManager, evm.blockchain, env, 1000n, evm.journal, evm.performanceLogger, { enabled: false }] as const
    const library = new Interpreter(...args)
    const built = createInterpreter(Interpreter as never, ...(args as unknown as [never, unknown, unknown, never, bigint, unknown, unknown, unknown])) as Record<string, unknown>
    expect(Object.getPrototypeOf(built)).toBe(Interpreter.prototype)
    expect(Object.keys(built)).toEqual(Object.keys(library))
    const { memory: libraryMemory, interpreter: li, stack: ls, ...libraryState } = library._runState as Record<string, unknown>
    // Under number-gas (numberGas.ts; not in stock mode) the gas left is held in a number, `gasLeft` an accessor over it.
    const { memory: builtMemory, interpreter: bi, stack: bs, gasLeftNumber, gasLeftExact, ...builtState } = built._runState as Record<string, unknown>
    expect([gasLeftNumber, gasLeftExact]).toEqual(numberGasApplied() ? [1000, 0n] : [undefined, undefined])
    expect(Object.keys(built._runState as object).filter((k) => k !== 'gasLeftNumber' && k !== 'gasLeftExact').sort()).toEqual(Object.keys(library._runState as object).sort())
    expect(builtState).toEqual(libraryState)
    expect({ ...(built._runState as object) }).toMatchObject({ gasLeft: 1000n })
    expect(li).toBe(library)
    expect(bi).toBe(built)
    expect(Object.getPrototypeOf(bs)).toBe(Object.getPrototypeOf(ls))
    expect(bs).toEqual(ls)
    expect(Object.getPrototypeOf(builtMemory)).toBe(Object.getPrototypeOf(libraryMemory))
    expect((builtMemory as Mem)._store.length).toBe(0)
    for (const key of Object.keys(library).filter((k) => k !== '_runState')) expect(built[key]).toEqual(library[key])
    expect(built._result).not.toBe(library._result)
    expect((built._result as { logs: unknown[] }).logs).not.toBe(env.initialLogs)
  })
})

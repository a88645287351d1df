import { createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { evmInternals } from '../../src/evm/evmInternals.js'
import { libraryHandlers, storageWord } from '../../src/evm/opcodeHandlers.js'
import { stockEngine } from './installEngine.js'

/*
 * The SSTORE gas handler and LOG handlers of opcodeHandlers.ts must charge,
 * refund, fail and log exactly as the library's: each case runs on a VM built
 * with the library's handlers and on one built with ours (an EVM copies the
 * handler tables when it is created).
 */

const contract = createAddressFromString('0x00000000000000000000000000000000000c0de1')
const caller = createAddressFromString('0x00000000000000000000000000000000000ca11e')
const sstore = (slot: number, value: number) => `60${value.toString(16).padStart(2, '0')}60${slot.toString(16).padStart(2, '0')}55`

const cases: [string, string, { gas?: bigint; isStatic?: boolean }?][] = [
  ['create a slot', sstore(0, 1)],
  ['delete a slot (refund)', sstore(1, 0)],
  ['write an existing slot', sstore(1, 5)],
  ['no-op write', sstore(1, 1)],
  ['create then reset to absent (init refund)', sstore(0, 1) + sstore(0, 0)],
  ['delete then recreate (refund taken back, clean refund)', sstore(1, 0) + sstore(1, 1)],
  ['dirty updates', sstore(1, 7) + sstore(1, 9) + sstore(1, 0) + sstore(2, 0) + sstore(2, 3)],
  ['a 32-byte value and key', `7f${'ff'.repeat(32)}7f${'80'.repeat(32)}55` + `7f${'ff'.repeat(32)}7f${'80'.repeat(32)}55`],
  ['EIP-2200 sentry: 2300 gas or less', sstore(0, 1), { gas: 2400n }],
  ['static frame', sstore(0, 1), { isStatic: true }],
  // LOG2 of 40 bytes of memory with a zero and a full topic, LOG0 of nothing, LOG4 past written memory.
  ['logs', `7f${'ab'.repeat(32)}6000527f${'ff'.repeat(32)}6000602860 04a2` .replace(' ', '') + '60006000a0' + '6001600260036004610100610200a4'],
]

async function run(code: string, options: { gas?: bigint; isStatic?: boolean } = {}) {
  const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
  await vm.stateManager.putCode(contract, hexToBytes(`0x${code}00`))
  await vm.stateManager.putStorage(contract, setLengthLeft(Uint8Array.of(1), 32), Uint8Array.of(1))
  await vm.stateManager.putStorage(contract, setLengthLeft(Uint8Array.of(2), 32), Uint8Array.of(2))
  const result = await vm.evm.runCall({ to: contract, caller, gasLimit: options.gas ?? 1_000_000n, isStatic: options.isStatic ?? false })
  const r = result.execResult
  return {
    gasUsed: r.executionGasUsed,
    refund: r.gasRefund,
    error: r.exceptionError?.error,
    logs: r.logs,
    slots: await Promise.all([0, 1, 2, 0x80].map((i) => vm.stateManager.getStorage(contract, setLengthLeft(Uint8Array.of(i), 32)))),
  }
}

async function withLibraryHandlers<T>(fn: () => Promise<T>): Promise<T> {
  const { handlers } = evmInternals.functions as { handlers: Map<number, unknown> }
  const { dynamicGasHandlers } = evmInternals.gas as { dynamicGasHandlers: Map<number, unknown> }
  const ours = { gas: dynamicGasHandlers.get(0x55), log: handlers.get(0xa0) }
  dynamicGasHandlers.set(0x55, libraryHandlers.sstoreGas)
  for (let op = 0xa0; op <= 0xa4; op++) handlers.set(op, libraryHandlers.log)
  try {
    return await fn()
  } finally {
    dynamicGasHandlers.set(0x55, ours.gas)
    for (let op = 0xa0; op <= 0xa4; op++) handlers.set(op, ours.log)
  }
}

describe.skipIf(stockEngine)('SSTORE gas and LOG handlers', () => {
  it('are installed', () => {
    const { dynamicGasHandlers } = evmInternals.gas as { dynamicGasHandlers: Map<number, unknown> }
    expect(libraryHandlers.sstoreGas).toBeDefined()
    expect(dynamicGasHandlers.get(0x55)).not.toBe(libraryHandlers.sstoreGas)
  })

  it.each(cases)('%s: same gas, refund, error, logs and storage as the library', async (_, code, options) => {
    // Runs the library's first: building a VM with ours must not depend on it.
    const library = await withLibraryHandlers(() => run(code, options))
    const ours = await run(code, options)
    expect(ours).toEqual(library)
  })

  it('storageWord equals the library setLengthLeftStorage', async () => {
    const { setLengthLeftStorage } = (await import(
      new URL('./opcodes/util.js', import.meta.resolve('@ethereumjs/evm')).href
    )) as { setLengthLeftStorage(v: Uint8Array): Uint8Array }
    const values = [new Uint8Array(0), Uint8Array.of(0), new Uint8Array(32), Uint8Array.of(1), Uint8Array.of(0, 5), new Uint8Array(31).fill(7), new Uint8Array(32).fill(9)]
    for (const v of values) expect(storageWord(v)).toEqual(setLengthLeftStorage(v))
    const word = new Uint8Array(32).fill(4)
    expect(storageWord(word)).toBe(setLengthLeftStorage(word))
    expect(() => storageWord(new Uint8Array(33).fill(1))).toThrow()
  })
})

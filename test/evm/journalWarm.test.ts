import { stripHexPrefix } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { noSlots, stripPrefix } from '../../src/evm/journalWarm.js'
import { stockEngine } from './installEngine.js'

describe('journal warm sets (journalWarm.ts)', () => {
  it('stripPrefix answers as stripHexPrefix', () => {
    const inputs = ['', '0', 'x', '0x', '0x0', '0xabcDEF12', '0xzz', '0x 1', '0X12', 'ab', 'abcdef0123456789abcdef0123456789abcdef01', '0xx12', '00x1']
    for (const input of inputs) expect(stripPrefix(input), input).toBe(stripHexPrefix(input))
    for (const bad of [undefined, 5, null]) expect(() => stripPrefix(bad as never)).toThrow(/stripHexPrefix/)
  })

  it('warms addresses and slots as the library, with and without an access list', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const journal = vm.evm.journal as unknown as {
      alwaysWarmJournal: Map<string, Set<string>>
      accessList?: Map<string, Set<string>>
      addAlwaysWarmAddress(a: string, add?: boolean): void
      addAlwaysWarmSlot(a: string, s: string, add?: boolean): void
      startReportingAccessList(): void
      isWarmedAddress(a: Uint8Array): boolean
    }
    const a = '00000000000000000000000000000000000000aa'
    journal.addAlwaysWarmAddress(`0x${a}`)
    journal.addAlwaysWarmAddress('0000000000000000000000000000000000000001')
    expect([...journal.alwaysWarmJournal.keys()]).toEqual([a, '0000000000000000000000000000000000000001'])
    expect(journal.accessList).toBeUndefined()
    journal.startReportingAccessList()
    journal.addAlwaysWarmSlot(`0x${a}`, `0x${'01'.repeat(32)}`, true)
    journal.addAlwaysWarmSlot(a, '02'.repeat(32), true)
    journal.addAlwaysWarmSlot('00000000000000000000000000000000000000bb', '03'.repeat(32))
    expect(journal.alwaysWarmJournal.get(a)).toEqual(new Set(['01'.repeat(32), '02'.repeat(32)]))
    expect(journal.alwaysWarmJournal.get('00000000000000000000000000000000000000bb')).toEqual(new Set(['03'.repeat(32)]))
    expect(journal.accessList!.get(a)).toEqual(new Set(['01'.repeat(32), '02'.repeat(32)]))
    expect(journal.accessList!.has('00000000000000000000000000000000000000bb')).toBe(false)
  })

  it.skipIf(stockEngine)('an address warmed without slots shares the read-only empty set until its first slot', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const journal = vm.evm.journal as unknown as {
      alwaysWarmJournal: Map<string, Set<string>>
      addAlwaysWarmAddress(a: string, add?: boolean): void
      addAlwaysWarmSlot(a: string, s: string, add?: boolean): void
      isWarmedStorage(a: Uint8Array, s: Uint8Array): boolean
    }
    const [a, b] = ['00000000000000000000000000000000000000aa', '00000000000000000000000000000000000000bb']
    journal.addAlwaysWarmAddress(a)
    journal.addAlwaysWarmAddress(b)
    expect(journal.alwaysWarmJournal.get(a)).toBe(noSlots)
    expect(journal.alwaysWarmJournal.get(b)).toBe(noSlots)
    expect(noSlots.size).toBe(0)
    expect(() => noSlots.add('01')).toThrow(/read only/)
    journal.addAlwaysWarmSlot(a, '01'.repeat(32))
    expect(journal.alwaysWarmJournal.get(a)).toEqual(new Set(['01'.repeat(32)]))
    expect(journal.alwaysWarmJournal.get(b)).toBe(noSlots)
    expect(noSlots.size).toBe(0)
    const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'))
    expect(journal.isWarmedStorage(bytes(a), bytes('01'.repeat(32)))).toBe(true)
    expect(journal.isWarmedStorage(bytes(b), bytes('01'.repeat(32)))).toBe(false)
    // Warming the address again keeps its own slots.
    journal.addAlwaysWarmAddress(a)
    expect(journal.alwaysWarmJournal.get(a)).toEqual(new Set(['01'.repeat(32)]))
  })
})

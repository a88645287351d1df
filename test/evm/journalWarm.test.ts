import { stripHexPrefix } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { stripPrefix } from '../../src/evm/journalWarm.js'
import './installEngine.js'

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
})

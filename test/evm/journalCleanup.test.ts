import { Account, Address } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { afterSpuriousDragon } from '../../src/evm/journalCleanup.js'
import './installEngine.js'

const address = (byte: number) => new Address(new Uint8Array(20).fill(byte))

type JournalInternals = {
  common: ReturnType<typeof createDevCommon>
  touched: Set<string>
  alwaysWarmJournal: Map<string, unknown>
  journalHeight: number
  touchAddress(address: Address): void
  addAlwaysWarmAddress(address: string): void
  checkpoint(): Promise<void>
  cleanup(): Promise<void>
}

describe('journal cleanup (journalCleanup.ts)', () => {
  it('deletes the touched empty accounts, keeps the others, and clears the journal (EIP-161)', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const journal = vm.evm.journal as unknown as JournalInternals
    const state = vm.stateManager
    await state.putAccount(address(1), new Account(0n, 0n))
    await state.putAccount(address(2), new Account(1n, 0n))
    await state.putAccount(address(3), new Account(0n, 5n))
    await journal.checkpoint()
    for (const byte of [1, 2, 3, 4]) journal.touchAddress(address(byte))
    journal.addAlwaysWarmAddress('00000000000000000000000000000000000000aa')
    await journal.cleanup()
    expect(await state.getAccount(address(1))).toBeUndefined()
    expect((await state.getAccount(address(2)))?.nonce).toBe(1n)
    expect((await state.getAccount(address(3)))?.balance).toBe(5n)
    expect(await state.getAccount(address(4))).toBeUndefined()
    expect(journal.touched.size).toBe(0)
    expect(journal.alwaysWarmJournal.size).toBe(0)
    expect(journal.journalHeight).toBe(0)
  })

  it('leaves touched empty accounts before Spurious Dragon', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const journal = vm.evm.journal as unknown as JournalInternals
    journal.common.setHardfork('tangerineWhistle')
    await vm.stateManager.putAccount(address(1), new Account(0n, 0n))
    journal.touchAddress(address(1))
    await journal.cleanup()
    expect(await vm.stateManager.getAccount(address(1))).toBeDefined()
  })

  it('answers "Spurious Dragon or later" as gteHardfork, across hardfork changes of one Common', () => {
    const common = createDevCommon(31337n, 'prague')
    for (const hardfork of ['prague', 'homestead', 'spuriousDragon', 'tangerineWhistle', 'cancun', 'chainstart', 'byzantium']) {
      common.setHardfork(hardfork)
      expect(afterSpuriousDragon(common), hardfork).toBe(common.gteHardfork('spuriousDragon'))
      expect(afterSpuriousDragon(common), `${hardfork} again`).toBe(common.gteHardfork('spuriousDragon'))
    }
  })
})

import { Account, Address, hexToBytes } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { evmInternals } from '../../src/evm/evmInternals.js'
import { stockEngine } from './installEngine.js'

/*
 * journal-cleanup (journalCleanup.ts): the end-of-transaction cleanup deletes
 * the touched accounts that are empty (EIP-161) and keeps the others, as the
 * library does, and empties the journal.
 */

type Journal = {
  touchAddress(address: Address): void
  touched: Set<string>
  accessList?: unknown
  cleanup(): Promise<void>
}

describe('journal cleanup', () => {
  it.skipIf(stockEngine)('is installed', () => {
    const { Journal } = evmInternals.journal as { Journal: { prototype: { cleanup: { toString(): string } } } }
    expect(String(Journal.prototype.cleanup)).toContain('bytesOfHex')
  })

  it('deletes touched empty accounts and keeps the rest', async () => {
    const vm = await createVM({ common: createDevCommon(31337n, 'prague') })
    const state = vm.stateManager
    const empty = new Address(hexToBytes(`0x${'ab'.repeat(20)}`))
    const funded = new Address(hexToBytes(`0x${'0c'.repeat(20)}`))
    const missing = new Address(hexToBytes(`0x${'00'.repeat(19)}7f`))
    await state.putAccount(empty, new Account(0n, 0n))
    await state.putAccount(funded, new Account(0n, 5n))
    const journal = vm.evm.journal as unknown as Journal
    await vm.evm.journal.checkpoint()
    for (const address of [empty, funded, missing]) journal.touchAddress(address)
    expect(journal.touched.size).toBe(3)
    await journal.cleanup()
    expect(await state.getAccount(empty)).toBeUndefined()
    expect(await state.getAccount(missing)).toBeUndefined()
    expect((await state.getAccount(funded))?.balance).toBe(5n)
    expect(journal.touched.size).toBe(0)
    expect('accessList' in journal).toBe(false)
  })
})

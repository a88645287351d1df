import { mnemonicToSeedSync } from '@scure/bip39'
import { HDKey, hdKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { defaultMnemonic } from '../../src/config/schema.js'
import { deriveAccounts } from '../../src/node/accounts.js'

/** The reference: the same derivation through @scure/bip39, @scure/bip32 and viem. */
function reference(mnemonic: string, count: number) {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic))
  return Array.from({ length: count }, (_, i) => ({
    address: hdKeyToAccount(root, { addressIndex: i }).address,
    privateKey: `0x${Buffer.from(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!).toString('hex')}`,
  }))
}

describe('deriveAccounts', () => {
  it('matches @scure/bip32 + viem for the default mnemonic (Anvil/Hardhat accounts)', () => {
    const accounts = deriveAccounts(defaultMnemonic, 20)
    expect(accounts.map((a) => ({ address: a.address, privateKey: a.privateKey }))).toEqual(reference(defaultMnemonic, 20))
    expect(accounts[0]!.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
  })

  it('matches the reference for another mnemonic, and the lazy viem account signs as that address', async () => {
    const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow'
    const accounts = deriveAccounts(mnemonic, 5)
    expect(accounts.map((a) => ({ address: a.address, privateKey: a.privateKey }))).toEqual(reference(mnemonic, 5))
    expect(accounts[3]!.account.address).toBe(accounts[3]!.address)
  })

  it('rejects a word count BIP-39 does not have', () => {
    expect(() => deriveAccounts('test test test', 1)).toThrow('Invalid mnemonic')
  })
})

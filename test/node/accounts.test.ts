import { mnemonicToSeedSync } from '@scure/bip39'
import { HDKey, hdKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { defaultMnemonic } from '../../src/config/schema.js'
import { deriveAccounts, knownCompressedKeys, knownSeeds, publicKeyCreate } from '../../src/node/accounts.js'
import { knownAddresses } from '../../src/node/knownAddresses.js'
import { publicKeyAddress } from '../../src/evm/engine.js'
import { getAddress } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'

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
    expect((await accounts[3]!.account()).address).toBe(accounts[3]!.address)
  })

  it("the default mnemonic's memoized seed and curve work are what BIP-39 and the curve give (viem's pure-JS secp256k1 and node:crypto's)", () => {
    expect(knownAddresses.size).toBe(20)
    for (const [key, address] of knownAddresses) {
      expect(privateKeyToAddress(`0x${key}`)).toBe(address)
      expect(publicKeyAddress(publicKeyCreate(Buffer.from(key, 'hex'), false))).toBe(getAddress(address))
    }
    expect([...knownSeeds]).toEqual([[defaultMnemonic, Buffer.from(mnemonicToSeedSync(defaultMnemonic)).toString('hex')]])
    expect(knownCompressedKeys.size).toBe(2)
    for (const [key, compressed] of knownCompressedKeys) {
      expect(Buffer.from(publicKeyCreate(Buffer.from(key, 'hex'), true)).toString('hex')).toBe(compressed)
    }
    // The two parents are those of the default path's non-hardened steps.
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(defaultMnemonic))
    expect([...knownCompressedKeys.keys()]).toEqual([`m/44'/60'/0'`, `m/44'/60'/0'/0`].map((path) => Buffer.from(root.derive(path).privateKey!).toString('hex')))
    expect([...knownCompressedKeys.values()]).toEqual([`m/44'/60'/0'`, `m/44'/60'/0'/0`].map((path) => Buffer.from(root.derive(path).publicKey!).toString('hex')))
  })

  it('matches the reference for the default mnemonic past the memoized accounts', () => {
    expect(deriveAccounts(defaultMnemonic, 23).slice(20).map((a) => ({ address: a.address, privateKey: a.privateKey }))).toEqual(reference(defaultMnemonic, 23).slice(20))
  })

  it('rejects a word count BIP-39 does not have', () => {
    expect(() => deriveAccounts('test test test', 1)).toThrow('Invalid mnemonic')
  })
})

import { mnemonicToSeedSync } from '@scure/bip39'
import type { Address, Hex, LocalAccount } from 'viem'
import { HDKey, hdKeyToAccount } from 'viem/accounts'

/** A dev account: its key is known, so the node signs for it (eth_sendTransaction, eth_sign...). */
export type DevAccount = {
  address: Address
  privateKey: Hex
  account: LocalAccount
}

const memo = new Map<string, DevAccount[]>()

/**
 * Derives `count` accounts at m/44'/60'/0'/0/i, as Anvil and Hardhat do. The
 * seed (2048 rounds of PBKDF2) is computed once per mnemonic per process, so
 * many devnets in one test run do not each pay for it.
 */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const key = `${count}:${mnemonic}`
  const cached = memo.get(key)
  if (cached) return cached
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic))
  const accounts = Array.from({ length: count }, (_, i) => {
    const account = hdKeyToAccount(root, { addressIndex: i })
    const privateKey = `0x${Buffer.from(root.derive(`m/44'/60'/0'/0/${i}`).privateKey!).toString('hex')}` as Hex
    return { address: account.address, privateKey, account }
  })
  memo.set(key, accounts)
  return accounts
}

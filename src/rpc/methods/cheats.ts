import type { StateManagerInterface } from '@ethereumjs/common'
import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address } from 'viem'
import { address, bool, data } from '../codecs.js'
import type { MethodDef } from '../defineMethod.js'
import { looseUint, looseUint64, word } from '../harnessCodecs.js'
import { harnessMethod } from './harness.js'

/** The account at `at`, created empty when missing, so code and storage have an account to live in. */
async function accountAt(state: StateManagerInterface, at: Address) {
  const key = createAddressFromString(at)
  const account = (await state.getAccount(key)) ?? new Account()
  return { key, account }
}

/**
 * State cheats (anvil_/hardhat_ setBalance, setCode, setNonce, setStorageAt,
 * plus ganache's evm_setAccount* names) and impersonation. Each state cheat
 * is one `node.cheat`: it changes the head's state (latest sees it at once,
 * as on Anvil) and the pre-confirmed transactions run again on top.
 */
export const cheatMethods: MethodDef[] = [
  ...harnessMethod({
    anvil: ['anvil_setBalance', 'evm_setAccountBalance'],
    hardhat: ['hardhat_setBalance'],
    params: [address, looseUint],
    handler: ({ node }, [at, balance]) =>
      node.cheat(async (state) => {
        const { key, account } = await accountAt(state, at)
        account.balance = balance
        await state.putAccount(key, account)
      }),
  }),
  ...harnessMethod({
    anvil: ['anvil_setCode', 'evm_setAccountCode'],
    hardhat: ['hardhat_setCode'],
    params: [address, data],
    handler: ({ node }, [at, code]) =>
      node.cheat(async (state) => {
        const { key, account } = await accountAt(state, at)
        await state.putAccount(key, account)
        await state.putCode(key, hexToBytes(code))
      }),
  }),
  ...harnessMethod({
    anvil: ['anvil_setNonce', 'evm_setAccountNonce'],
    hardhat: ['hardhat_setNonce'],
    params: [address, looseUint64],
    handler: ({ node }, [at, nonce]) =>
      node.cheat(async (state) => {
        const { key, account } = await accountAt(state, at)
        account.nonce = nonce
        await state.putAccount(key, account)
      }),
  }),
  // Anvil answers true here, unlike its other setters.
  ...harnessMethod({
    anvil: ['anvil_setStorageAt', 'evm_setAccountStorageAt'],
    hardhat: ['hardhat_setStorageAt'],
    params: [address, word, word],
    handler: async ({ node }, [at, slot, value]) => {
      await node.cheat(async (state) => {
        const { key, account } = await accountAt(state, at)
        await state.putAccount(key, account)
        await state.putStorage(key, hexToBytes(slot), hexToBytes(value))
      })
      return true
    },
  }),
  ...harnessMethod({
    anvil: ['anvil_impersonateAccount'],
    hardhat: ['hardhat_impersonateAccount'],
    params: [address],
    handler: ({ node }, [at]) => node.write(async () => node.controls.impersonate(at)),
  }),
  ...harnessMethod({
    anvil: ['anvil_stopImpersonatingAccount'],
    hardhat: ['hardhat_stopImpersonatingAccount'],
    params: [address],
    handler: ({ node }, [at]) => node.write(async () => node.controls.stopImpersonating(at)),
  }),
  ...harnessMethod({
    anvil: ['anvil_autoImpersonateAccount'],
    hardhat: ['hardhat_autoImpersonateAccount'],
    params: [bool],
    handler: ({ node }, [enabled]) =>
      node.write(async () => {
        node.controls.autoImpersonate = enabled
      }),
  }),
]

import { setBalance, setCode, setNonce, setStorageAt } from '../../node/stateAccess.js'
import { address, bool, data } from '../codecs.js'
import type { MethodDef } from '../defineMethod.js'
import { looseUint, looseUint64, word } from '../harnessCodecs.js'
import { harnessMethod } from './harness.js'

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
      node.cheat((state) => setBalance(state, at, balance)),
  }),
  ...harnessMethod({
    anvil: ['anvil_setCode', 'evm_setAccountCode'],
    hardhat: ['hardhat_setCode'],
    params: [address, data],
    handler: ({ node }, [at, code]) =>
      node.cheat((state) => setCode(state, at, code)),
  }),
  ...harnessMethod({
    anvil: ['anvil_setNonce', 'evm_setAccountNonce'],
    hardhat: ['hardhat_setNonce'],
    params: [address, looseUint64],
    handler: ({ node }, [at, nonce]) =>
      node.cheat((state) => setNonce(state, at, nonce)),
  }),
  // Anvil answers true here, unlike its other setters.
  ...harnessMethod({
    anvil: ['anvil_setStorageAt', 'evm_setAccountStorageAt'],
    hardhat: ['hardhat_setStorageAt'],
    params: [address, word, word],
    handler: async ({ node }, [at, slot, value]) => {
      await node.cheat((state) => setStorageAt(state, at, slot, value))
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

import { address, bool, data } from '../codecs.js'
import type { MethodDef } from '../defineMethod.js'
import { looseUint, looseUint64, word } from '../harnessCodecs.js'
import { harnessMethod } from './harness.js'

/**
 * State cheats (anvil_/hardhat_ setBalance, setCode, setNonce, setStorageAt,
 * plus ganache's evm_setAccount* names) and impersonation. Each is one node
 * operation (src/node/cheats.ts): a state cheat changes the head's state
 * (latest sees it at once, as on Anvil) and the pre-confirmed transactions
 * run again on top.
 */
export const cheatMethods: MethodDef[] = [
  ...harnessMethod({
    anvil: ['anvil_setBalance', 'evm_setAccountBalance'],
    hardhat: ['hardhat_setBalance'],
    params: [address, looseUint],
    handler: ({ node }, [at, balance]) =>
      node.setBalance(at, balance),
  }),
  ...harnessMethod({
    anvil: ['anvil_setCode', 'evm_setAccountCode'],
    hardhat: ['hardhat_setCode'],
    params: [address, data],
    handler: ({ node }, [at, code]) =>
      node.setCode(at, code),
  }),
  ...harnessMethod({
    anvil: ['anvil_setNonce', 'evm_setAccountNonce'],
    hardhat: ['hardhat_setNonce'],
    params: [address, looseUint64],
    handler: ({ node }, [at, nonce]) =>
      node.setNonce(at, nonce),
  }),
  // Anvil answers true here, unlike its other setters.
  ...harnessMethod({
    anvil: ['anvil_setStorageAt', 'evm_setAccountStorageAt'],
    hardhat: ['hardhat_setStorageAt'],
    params: [address, word, word],
    handler: async ({ node }, [at, slot, value]) => {
      await node.setStorageAt(at, slot, value)
      return true
    },
  }),
  ...harnessMethod({
    anvil: ['anvil_impersonateAccount'],
    hardhat: ['hardhat_impersonateAccount'],
    params: [address],
    handler: ({ node }, [at]) => node.impersonate(at, true),
  }),
  ...harnessMethod({
    anvil: ['anvil_stopImpersonatingAccount'],
    hardhat: ['hardhat_stopImpersonatingAccount'],
    params: [address],
    handler: ({ node }, [at]) => node.impersonate(at, false),
  }),
  ...harnessMethod({
    anvil: ['anvil_autoImpersonateAccount'],
    hardhat: ['hardhat_autoImpersonateAccount'],
    params: [bool],
    handler: ({ node }, [enabled]) => node.autoImpersonate(enabled),
  }),
]

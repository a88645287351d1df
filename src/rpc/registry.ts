import type { MethodDef } from './defineMethod.js'
import { blockMethods } from './methods/blocks.js'
import { callMethods } from './methods/call.js'
import { chainMethods } from './methods/chain.js'
import { devnetMethods, txpoolMethods } from './methods/devnet.js'
import { fixtureMethods } from './methods/fixture.js'
import { logMethods } from './methods/logs.js'
import { sendMethods } from './methods/send.js'
import { signMethods } from './methods/sign.js'
import { stateMethods } from './methods/state.js'

/** Every method devnet serves, in one table. */
export const allMethods: MethodDef[] = [
  ...chainMethods,
  ...stateMethods,
  ...callMethods,
  ...blockMethods,
  ...sendMethods,
  ...signMethods,
  ...logMethods,
  ...devnetMethods,
  ...txpoolMethods,
  ...fixtureMethods,
]

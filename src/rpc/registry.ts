import type { MethodDef } from './defineMethod.js'
import { blockMethods } from './methods/blocks.js'
import { callMethods } from './methods/call.js'
import { cheatMethods } from './methods/cheats.js'
import { chainMethods } from './methods/chain.js'
import { devnetMethods, txpoolMethods } from './methods/devnet.js'
import { logMethods } from './methods/logs.js'
import { miningMethods } from './methods/mining.js'
import { sendMethods } from './methods/send.js'
import { signMethods } from './methods/sign.js'
import { snapshotMethods } from './methods/snapshot.js'
import { stateMethods } from './methods/state.js'
import { timeMethods } from './methods/time.js'

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
  ...snapshotMethods,
  ...timeMethods,
  ...cheatMethods,
  ...miningMethods,
]

import type { MethodDef } from './defineMethod.js'
import { blockMethods } from './methods/blocks.js'
import { callMethods } from './methods/call.js'
import { cheatMethods } from './methods/cheats.js'
import { chainMethods } from './methods/chain.js'
import { configMethods } from './methods/config.js'
import { debugRawMethods } from './methods/debugRaw.js'
import { debugTraceMethods } from './methods/debugTrace.js'
import { devnetMethods, txpoolMethods } from './methods/devnet.js'
import { filterMethods } from './methods/filters.js'
import { fixtureMethods } from './methods/fixture.js'
import { logMethods } from './methods/logs.js'
import { proofMethods } from './methods/proof.js'
import { miningMethods } from './methods/mining.js'
import { sendMethods } from './methods/send.js'
import { signMethods } from './methods/sign.js'
import { snapshotMethods } from './methods/snapshot.js'
import { simulateMethods } from './methods/simulate.js'
import { stateMethods } from './methods/state.js'
import { testingMethods } from './methods/testing.js'
import { tokenMethods } from './methods/token.js'
import { reorgMethods } from './methods/reorg.js'
import { httpSubscriptionMethods } from './subscriptions.js'
import { timeMethods } from './methods/time.js'

/** Every method devnet serves, in one table. */
export const allMethods: MethodDef[] = [
  ...chainMethods,
  ...stateMethods,
  ...callMethods,
  ...simulateMethods,
  ...blockMethods,
  ...sendMethods,
  ...signMethods,
  ...logMethods,
  ...filterMethods,
  ...reorgMethods,
  ...httpSubscriptionMethods,
  ...devnetMethods,
  ...txpoolMethods,
  ...tokenMethods,
  ...proofMethods,
  ...debugRawMethods,
  ...configMethods,
  ...debugTraceMethods,
  ...testingMethods,
  ...snapshotMethods,
  ...timeMethods,
  ...cheatMethods,
  ...miningMethods,
  ...fixtureMethods,
]

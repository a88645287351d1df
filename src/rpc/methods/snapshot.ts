import { alias, defineMethod, type MethodDef } from '../defineMethod.js'
import { q } from '../format.js'
import { looseUint } from '../harnessCodecs.js'

/**
 * evm_snapshot / evm_revert (and Anvil's anvil_* names): a snapshot covers
 * the sealed chain, the pool, the pre-confirmed layer, the clock and time
 * controls, the mining mode, impersonation and every registered component.
 * Reverting deletes that id and all later ones; an unknown id answers false.
 */
export const snapshotMethods: MethodDef[] = [
  ...alias(
    defineMethod({
      method: 'evm_snapshot',
      params: [],
      handler: async ({ node }) => q(await node.snapshots.take()),
    }),
    'anvil_snapshot',
  ),
  ...alias(
    defineMethod({
      method: 'evm_revert',
      params: [looseUint],
      handler: ({ node }, [id]) => node.snapshots.revert(id),
    }),
    'anvil_revert',
  ),
]

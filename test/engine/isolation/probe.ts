/**
 * Run in a fresh process by test/engine/isolation.test.ts: what importing
 * devnet (src/index.ts, devnet/vitest) and then creating a devnet changes in
 * the host's own @ethereumjs and RLP. Prints JSON.
 */
import { Common } from '@ethereumjs/common'
import { EVM } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager } from '@ethereumjs/statemanager'

const references = () => ({
  'RLP.encode': RLP.encode,
  'Common.prototype.isActivatedEIP': Common.prototype.isActivatedEIP,
  'Common.prototype.updateParams': Common.prototype.updateParams,
  'EVM.prototype._executeCall': (EVM.prototype as unknown as { _executeCall: unknown })._executeCall,
  'MerkleStateManager.prototype.putStorage': MerkleStateManager.prototype.putStorage,
})
const before = references()
const changedReferences = () => {
  const now = references()
  return Object.keys(before).filter((k) => before[k as keyof typeof before] !== now[k as keyof typeof now])
}

await import('../../../src/index.js')
await import('../../../src/testing/vitest.js')
const { checkFingerprints, enginePatches } = await import('../../../src/evm/patches/registry.js')
// The installed library's code as it is now, against the fingerprints of the pristine upstream.
const changed = () => checkFingerprints(enginePatches, (patch) => patch.upstream().map((fn) => String(fn))).map((m) => m.id)

const afterImport = { patches: changed(), references: changedReferences() }
const { createDevnet } = await import('../../../src/index.js')
const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
await devnet.seal()
await devnet.close()
const afterCreate = { patches: changed(), references: changedReferences() }
console.log(JSON.stringify({ afterImport, afterCreate }))

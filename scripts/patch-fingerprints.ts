/**
 * Prints the fingerprint of every engine patch (src/evm/patches/registry.ts)
 * as the installed @ethereumjs gives it, marking those that differ from the
 * registry. After an upgrade: review each marked patch against the new
 * upstream source, then copy its new fingerprint into the registry.
 *
 *   npx tsx scripts/patch-fingerprints.ts
 */
import { enginePatches, fingerprintOf, upstreamSources } from '../src/evm/patches/registry.js'

let changed = 0
for (const patch of enginePatches) {
  const actual = fingerprintOf(upstreamSources(patch))
  const same = actual === patch.fingerprint
  if (!same) changed++
  console.log(`${same ? ' ' : '*'} ${patch.id.padEnd(24)} ${actual}`)
}
console.log(`${enginePatches.length} patches, ${changed} differ from the registry`)
process.exitCode = changed > 0 ? 1 : 0

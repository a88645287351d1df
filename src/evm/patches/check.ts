/**
 * Checks every engine patch's fingerprint against the installed @ethereumjs
 * and exits non-zero, naming the patches, on a difference.
 * scripts/engineBundle.mjs runs it (bundled with the packages left external,
 * so it reads the very files the bundles inline) before building the CLI
 * bundle and the library's engine, whose esbuild reprint of the library no
 * longer has the upstream source text.
 */
import { EnginePatchMismatchError, checkFingerprints, enginePatches } from './registry.js'

const mismatches = checkFingerprints()
if (mismatches.length > 0) {
  console.error(new EnginePatchMismatchError(mismatches).message)
  process.exit(1)
}
console.log(`engine patches: ${enginePatches.length} fingerprints match the installed @ethereumjs`)

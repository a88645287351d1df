/** Installs devnet's engine (the patch registry) for tests that use @ethereumjs directly, without creating a node. */
import { engineModeOf, installEngine } from '../../src/evm/patches/registry.js'

installEngine()

/**
 * Whether this run is DEVNET_ENGINE=stock (npm test runs the EVM, token and conformance suites once so): tests of a
 * replacement itself (is it installed, does the fast path equal the library's) have nothing to test there.
 */
export const stockEngine = engineModeOf() === 'stock'

/** Installs devnet's engine (the patch registry) for tests that use @ethereumjs directly, without creating a node. */
import { installEngine } from '../../src/evm/patches/registry.js'

installEngine()

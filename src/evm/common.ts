import { paramsBlock } from '@ethereumjs/block'
import { Common, Mainnet, createCustomCommon, type Hardfork } from '@ethereumjs/common'
import { paramsEVM } from '@ethereumjs/evm'
import { paramsTx } from '@ethereumjs/tx'
import { paramsVM } from '@ethereumjs/vm'
import { customCrypto } from './crypto.js'
import { createKzg } from './geth/kzg.js'
import { assertKnownEips, installEngine, patchActive } from './patches/registry.js'
import { useEipSet } from './speedups.js'

/** Hardforks in activation order, as @ethereumjs/common names them. */
const hardforkOrder = [
  'chainstart', 'homestead', 'tangerineWhistle', 'spuriousDragon', 'byzantium',
  'constantinople', 'petersburg', 'istanbul', 'muirGlacier', 'berlin', 'london',
  'arrowGlacier', 'grayGlacier', 'paris', 'mergeNetsplitBlock', 'shanghai',
  'cancun', 'prague', 'osaka',
] as const

/** Hardforks a dev chain may run. Prague and Osaka are fully supported by @ethereumjs 10.1. */
export const supportedHardforks = ['cancun', 'prague', 'osaka'] as const

/**
 * The Common of a dev chain: every fork up to `hardfork` active from genesis,
 * proof-of-stake (no block reward), native signature recovery.
 */
export function createDevCommon(chainId: bigint, hardfork: string): Common {
  installEngine()
  if (!(supportedHardforks as readonly string[]).includes(hardfork))
    throw new Error(
      `unsupported hardfork "${hardfork}" (supported: ${supportedHardforks.join(', ')})`,
    )
  const last = hardforkOrder.indexOf(hardfork as (typeof hardforkOrder)[number])
  const hardforks = hardforkOrder.slice(0, last + 1).map((name) => ({
    name,
    block: 0,
    ...(hardforkOrder.indexOf(name) >= hardforkOrder.indexOf('shanghai') ? { timestamp: 0 } : {}),
  }))
  const common = createCustomCommon(
    {
      name: 'devnet',
      chainId: Number(chainId),
      hardforks,
      consensus: { type: 'pos', algorithm: 'casper' },
    },
    Mainnet,
    // KZG lets blob transactions be decoded and their sidecars verified (parsed lazily)
    { hardfork: hardfork as Hardfork, customCrypto: { ...engineCrypto(), kzg: createKzg() } },
  )
  assertKnownEips(common)
  if (patchActive('eip-set')) useEipSet(common)
  return tuneCommon(common)
}

/**
 * Every transaction and block ethereumjs creates copies its Common and merges
 * its parameter set into it again, rebuilding the parameter cache each time
 * (a third of the cost of sealing a small block). The parameter table is
 * shared between copies, so once the four standard sets are merged, merging
 * them again changes nothing: we merge them once and make the repeat a no-op.
 */
export function tuneCommon(common: Common): Common {
  if (!patchActive('common-params')) return common
  const standard = new Set<object>([paramsTx, paramsBlock, paramsVM, paramsEVM])
  for (const params of standard) common.updateParams(params as never)
  const original = Common.prototype.updateParams
  ;(common as { updateParams: Common['updateParams'] }).updateParams = function (this: Common, params) {
    if (standard.has(params)) return
    original.call(this, params)
  }
  return common
}

/** The keccak and signature recovery a Common gets: devnet's (native, WebAssembly), or the library's own in stock mode. */
export function engineCrypto(): typeof customCrypto {
  return patchActive('native-crypto') ? customCrypto : {}
}

export type { Common }

import type { Common } from '@ethereumjs/common'
import { checksumAddress } from './address.js'
import { paymentTokenBytecode, paymentTokenDeployedBytecode } from '../artifacts/paymentToken.js'
import { cachedGenesisPart, isStorageWords } from './genesisDiskCache.js'
import { buildTokenGenesis, type TokenGenesis, type TokenGenesisOptions } from './token.js'

/** Bump when buildTokenGenesis changes what it computes for the same inputs. */
const format = 1

/**
 * buildTokenGenesis, with its result kept on disk between processes
 * (genesisDiskCache.ts): running the token's constructor and mints in an EVM
 * is ~120 ms, the largest part of a node's start. The key covers the token
 * bytecode, chain id, hardfork and options.
 */
export function cachedTokenGenesis(common: Common, options: TokenGenesisOptions): Promise<TokenGenesis> {
  return cachedGenesisPart({
    name: 'token-genesis',
    inputs: [format, paymentTokenBytecode, common.chainId(), common.hardfork(), options],
    build: () => buildTokenGenesis(common, options),
    toFile: (built) => ({ storage: built.storage }),
    fromFile: (parsed) => {
      const storage = (parsed as { storage?: unknown } | null)?.storage
      if (!isStorageWords(storage)) return undefined
      // Address and code are not stored: buildTokenGenesis derives them from the options and the artifact alone.
      return { address: checksumAddress(options.address), code: paymentTokenDeployedBytecode, storage }
    },
  })
}

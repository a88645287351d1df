import type { Common } from '@ethereumjs/common'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress } from 'viem/utils'
import { paymentTokenBytecode, paymentTokenDeployedBytecode } from '../artifacts/paymentToken.js'
import { buildTokenGenesis, type TokenGenesis, type TokenGenesisOptions } from './token.js'

/** Bump when buildTokenGenesis changes what it computes for the same inputs. */
const format = 1

const word = /^0x[0-9a-f]{64}$/

/**
 * buildTokenGenesis, with its result kept on disk between processes: running
 * the token's constructor and mints in an EVM is ~120 ms, the largest part of
 * a node's start. The file is named by a hash of every input (token bytecode,
 * chain id, hardfork, options), so a change to any of them builds again; an
 * unreadable, malformed or foreign file is ignored and the genesis is built.
 * Files live in a directory of the user's own (mode 0700) under the system
 * temp dir; DEVNET_NO_GENESIS_CACHE=1 turns the cache off.
 */
export async function cachedTokenGenesis(common: Common, options: TokenGenesisOptions): Promise<TokenGenesis> {
  const dir = cacheDir()
  if (!dir) return buildTokenGenesis(common, options)
  const key = createHash('sha256')
    .update(
      JSON.stringify([format, paymentTokenBytecode, common.chainId(), common.hardfork(), options], (_, v) =>
        typeof v === 'bigint' ? v.toString() : v,
      ),
    )
    .digest('hex')
  const file = join(dir, `token-genesis-${key}.json`)
  const cached = read(file, options)
  if (cached) return cached
  const built = await buildTokenGenesis(common, options)
  try {
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, JSON.stringify({ storage: built.storage }), { mode: 0o600 })
    renameSync(partial, file)
  } catch {
    // A cache that cannot be written only costs the next start its build.
  }
  return built
}

/** The per-user genesis cache directory, or undefined when off or untrusted (also used by paymentContractsCache.ts). */
export function cacheDir(): string | undefined {
  if (process.env.DEVNET_NO_GENESIS_CACHE === '1') return undefined
  const uid = process.getuid?.()
  const dir = join(tmpdir(), `devnet-cache-${uid ?? 'user'}`)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = statSync(dir)
    // Another user's directory (or one others may write to) is not trusted.
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined
    return dir
  } catch {
    return undefined
  }
}

function read(file: string, options: TokenGenesisOptions): TokenGenesis | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
  const storage = (parsed as { storage?: unknown } | null)?.storage
  if (!Array.isArray(storage)) return undefined
  for (const entry of storage)
    if (!Array.isArray(entry) || entry.length !== 2 || !word.test(entry[0]) || !word.test(entry[1])) return undefined
  // Address and code are not stored: buildTokenGenesis derives them from the options and the artifact alone.
  return { ...tokenIdentity(options), storage: storage as TokenGenesis['storage'] }
}

function tokenIdentity(options: TokenGenesisOptions): Pick<TokenGenesis, 'address' | 'code'> {
  return { address: getAddress(options.address), code: paymentTokenDeployedBytecode }
}

import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A genesis part that costs an EVM run to build (the token's constructor and
 * mints, the payment contracts' constructors), kept on disk between
 * processes. The file is named by a hash of every input, so a change to any
 * of them builds again; an unreadable, malformed or foreign file is ignored
 * (`fromFile` answers undefined) and the part is built. Files live in a
 * directory of the user's own (mode 0700) under the system temp dir;
 * DEVNET_NO_GENESIS_CACHE=1 turns the cache off.
 */
export async function cachedGenesisPart<T>(options: {
  /** File name prefix, e.g. `token-genesis`. */
  name: string
  /** Every input the build depends on (bigints allowed). */
  inputs: unknown
  build: () => Promise<T>
  /** What is written: only what cannot be derived from the inputs. */
  toFile: (built: T) => unknown
  /** The part from a parsed file, or undefined when the file is not one of ours. */
  fromFile: (parsed: unknown) => T | undefined
}): Promise<T> {
  const dir = cacheDir()
  if (!dir) return options.build()
  const key = createHash('sha256')
    .update(JSON.stringify(options.inputs, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
    .digest('hex')
  const file = join(dir, `${options.name}-${key}.json`)
  const cached = readCached(file, options.fromFile)
  if (cached) return cached
  const built = await options.build()
  try {
    const partial = `${file}.${process.pid}.tmp`
    writeFileSync(partial, JSON.stringify(options.toFile(built)), { mode: 0o600 })
    renameSync(partial, file)
  } catch {
    // A cache that cannot be written only costs the next start its build.
  }
  return built
}

const word = /^0x[0-9a-f]{64}$/

/** Storage as the caches write it: a list of [slot, value] pairs of 32-byte lowercase hex words. */
export function isStorageWords(value: unknown): value is [`0x${string}`, `0x${string}`][] {
  return (
    Array.isArray(value) &&
    value.every((pair) => Array.isArray(pair) && pair.length === 2 && word.test(pair[0]) && word.test(pair[1]))
  )
}

function readCached<T>(file: string, fromFile: (parsed: unknown) => T | undefined): T | undefined {
  try {
    return fromFile(JSON.parse(readFileSync(file, 'utf8')))
  } catch {
    return undefined
  }
}

/** The per-user genesis cache directory, or undefined when off or untrusted. */
function cacheDir(): string | undefined {
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

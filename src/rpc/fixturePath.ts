import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import type { DevnetConfig } from '../config/schema.js'
import { InvalidInputError, InvalidParamsError } from './errors.js'

/**
 * Where a file path given over JSON-RPC may point. Anyone who can reach the
 * port can call devnet_dumpFixture / devnet_loadFixture (and with CORS on, a
 * web page can), so by default their paths resolve inside the fixtures
 * directory (`fixturesDir`, relative to the working directory): an absolute
 * path, a `..` that climbs out, or a symbolic link that leads out is refused
 * with -32602 naming the rule. `allowFs` (`--allow-fs`) lifts the rule: paths
 * then resolve from the working directory, as anvil_dumpState's do.
 */
export async function resolveFixturePath(
  config: Pick<DevnetConfig, 'fixturesDir' | 'allowFs'>,
  path: string,
  use: 'read' | 'write',
): Promise<string> {
  // The OS would refuse these with errors that are not the caller's to read.
  if (path.includes('\0')) throw new InvalidParamsError('invalid argument 0: the path contains a NUL character')
  if (path.length > 4096) throw new InvalidParamsError('invalid argument 0: the path is longer than 4096 characters')
  if (config.allowFs) return resolve(path)

  const refuse = (why: string): never => {
    throw new InvalidParamsError(
      `invalid argument 0: ${JSON.stringify(path)} ${why}: JSON-RPC reads and writes fixtures only inside the fixtures directory "${config.fixturesDir}" (start devnet with --allow-fs to lift this)`,
    )
  }
  if (isAbsolute(path)) refuse('is absolute')
  // Loaded here, not with the module: a start that never names a fixture file does not compile node:fs/promises.
  const { mkdir, realpath } = await import('node:fs/promises')
  const root = resolve(config.fixturesDir)
  const target = resolve(root, path)
  if (!inside(root, target) || target === root) refuse('leads outside the directory')
  if (use === 'write') {
    try {
      await mkdir(dirname(target), { recursive: true })
    } catch (error) {
      throw new InvalidInputError(`cannot create the directory of fixture ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)
    }
  }
  // Symbolic links: the real place of the nearest existing part of the path must be inside too.
  const realRoot = await realpath(root).catch(() => root)
  let existing = target
  for (;;) {
    const real = await realpath(existing).catch(() => undefined)
    if (real !== undefined) {
      if (!inside(realRoot, real)) refuse('leads outside the directory through a symbolic link')
      break
    }
    if (existing === root || dirname(existing) === existing) break
    existing = dirname(existing)
  }
  return target
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

import type { Hex } from 'viem'
import { FixtureFileError, readFixtureFile } from '../../node/fixture/file.js'
import { FixtureError, type LoadableFixture } from '../../node/fixture/format.js'
import type { LoadOptions } from '../../node/fixture/load.js'
import { parseFixture } from '../../node/fixture/validate.js'
import { ArgError } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidInputError, InvalidParamsError } from '../errors.js'
import { resolveFixturePath } from '../fixturePath.js'
import { q } from '../format.js'

/**
 * Fixtures over JSON-RPC (the file format is described in
 * src/node/fixture/format.ts and the README):
 *
 * - `devnet_dumpFixture(path?)`: with a path, writes the fixture there
 *   atomically and returns `{ path, bytes }`; without one, returns the
 *   fixture object itself (what `devnet_loadFixture` accepts).
 * - `devnet_loadFixture(path | fixture, { verifyState }?)`: replaces the
 *   running chain with the fixture's and returns the new head `{ number,
 *   hash, blocks }`. The file is checked first (version, format, hashes,
 *   parent links, receipts, every state root present; with `verifyState:
 *   true` also every state node against its hash and every state for
 *   completeness); a bad one is refused with -32602 naming the problem, an
 *   unreadable path with -32000, and the running chain is left as it was.
 *   The fixture must be of this chain (same chain id, hardfork, dev accounts,
 *   token address); to switch chains, start a devnet with `--fixture`.
 *
 * Both write and read files on the machine the devnet runs on, like
 * anvil_dumpState/anvil_loadState, but only inside the fixtures directory
 * (`fixturesDir`, default `./fixtures`) unless the devnet was started with
 * `allowFs` (`--allow-fs`): see ../fixturePath.ts.
 */
const path = (value: unknown): string => {
  if (typeof value !== 'string' || value.length === 0) throw new ArgError('expected a file path')
  return value
}

/** `{ verifyState?: boolean }`: the full state check (see src/node/fixture/format.ts). */
const loadOptions = (value: unknown): LoadOptions => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgError('expected an options object')
  const options = value as Record<string, unknown>
  for (const key of Object.keys(options)) if (key !== 'verifyState') throw new ArgError(`unknown option "${key}"`)
  if (options.verifyState !== undefined && typeof options.verifyState !== 'boolean') throw new ArgError('verifyState: expected a boolean')
  return { verifyState: options.verifyState === true }
}

const pathOrFixture = (value: unknown): string | object => {
  if (typeof value === 'string' && value.length > 0) return value
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  throw new ArgError('expected a fixture file path or a fixture object')
}

/** An error names the path as the caller gave it, not where the server keeps it. */
const asGiven = (message: string, resolved: string | undefined, given: string | undefined) =>
  resolved === undefined || given === undefined ? message : message.split(resolved).join(given)

/** Turns load problems into wire errors: content → -32602, files → -32000. */
async function wire<T>(fn: (resolve: (path: string) => Promise<string>) => Promise<T>, config: Parameters<typeof resolveFixturePath>[0]): Promise<T> {
  let given: string | undefined
  let resolved: string | undefined
  try {
    return await fn(async (path) => {
      given = path
      resolved = await resolveFixturePath(config, path, 'read')
      return resolved
    })
  } catch (error) {
    if (error instanceof FixtureError) throw new InvalidParamsError(`invalid fixture: ${error.shortMessage}`)
    if (error instanceof FixtureFileError) throw new InvalidInputError(asGiven(error.message, resolved, given))
    throw error
  }
}

export const fixtureMethods: MethodDef[] = [
  defineMethod({
    method: 'devnet_dumpFixture',
    params: [path],
    required: 0,
    handler: async ({ node }, [file]) => {
      let resolved: string | undefined
      try {
        if (file === undefined) return await node.dumpFixture()
        resolved = await resolveFixturePath(node.config, file, 'write')
        return await node.dumpFixtureToFile(resolved)
      } catch (error) {
        // The chain cannot be dumped (a geth import) or the file cannot be written.
        if (error instanceof FixtureError) throw new InvalidInputError(error.shortMessage)
        if (error instanceof FixtureFileError) throw new InvalidInputError(asGiven(error.message, resolved, file))
        throw error
      }
    },
  }),
  defineMethod({
    method: 'devnet_loadFixture',
    params: [pathOrFixture, loadOptions],
    required: 1,
    handler: ({ node }, [source, options]) =>
      wire(async (resolve) => {
        const fixture: LoadableFixture =
          typeof source === 'string' ? (await readFixtureFile(await resolve(source))).fixture : parseFixture(source)
        const head = await node.loadFixture(fixture, options)
        return { number: q(head.number), hash: head.hash as Hex, blocks: fixture.blocks.length }
      }, node.config),
  }),
]

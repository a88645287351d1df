import { ConfigError } from '../config/load.js'
import { ChainImportError } from '../errors/chainImport.js'
import { FixtureError, FixtureFileError } from '../node/fixture/format.js'
import { InvalidInputError } from '../node/errors.js'
import { ForkRemoteError } from '../node/fork/remote.js'
import { UsageError } from './start.js'

/**
 * The one line to print when `error` comes from the user's input (a flag,
 * the config, a fixture, an import, the address to listen on, the fork
 * upstream that could not be read: its URL, or the network to it, or what
 * it answered: a fork block it lacks), or undefined
 * for anything else (a devnet bug). `fixture` names the fixture file, whose
 * content errors do not carry it.
 */
export function userErrorMessage(error: unknown, context: { fixture?: string | undefined } = {}): string | undefined {
  if (error instanceof UsageError) return error.message
  if (error instanceof ConfigError || error instanceof ChainImportError) return error.shortMessage
  if (error instanceof FixtureFileError) return error.message
  if (error instanceof ForkRemoteError) return error.message.split('\n')[0]
  // At start, what the node refuses is what it was given: a fork block the upstream lacks, a chain id changed at a URL.
  if (error instanceof InvalidInputError) return error.message
  if (error instanceof FixtureError) return `fixture ${context.fixture ?? ''}: ${error.shortMessage}`.replace('fixture : ', 'fixture: ')
  const e = error as NodeJS.ErrnoException
  // Errors of listen(): the port or host the user asked for.
  if (e?.code === 'EADDRINUSE') return `port already in use: ${e.message}`
  if (e?.syscall === 'listen' || e?.syscall === 'getaddrinfo' || e?.code === 'EADDRNOTAVAIL')
    return `cannot listen: ${e.message}`
  return undefined
}

import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { ConfigInput } from '../config/load.js'
import type { ConfigSources, DevnetOptions } from '../index.js'

/** The flags of `devnet start`. */
export const startFlags = {
  port: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  'chain-id': { type: 'string' },
  'block-time': { type: 'string' },
  'preconf-interval': { type: 'string' },
  mining: { type: 'string' },
  clock: { type: 'string' },
  preset: { type: 'string' },
  genesis: { type: 'string' },
  import: { type: 'string' },
  forkchoice: { type: 'string' },
  fixture: { type: 'string' },
  'dump-fixture': { type: 'string' },
  'fork-url': { type: 'string' },
  'fork-block': { type: 'string' },
  'fork-cache': { type: 'string' },
  'fork-chain-id': { type: 'string' },
  'fork-offline': { type: 'boolean' },
  'no-ui': { type: 'boolean' },
  'fixtures-dir': { type: 'string' },
  'allow-fs': { type: 'boolean' },
  'x402-facilitator': { type: 'boolean' },
  'x402-port': { type: 'string' },
  'x402-wait-for': { type: 'string' },
  debug: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const

export type StartValues = ReturnType<typeof parseArgs<{ options: typeof startFlags; allowPositionals: true }>>['values']

/** A flag value the CLI refuses (one line, exit 2). */
export class UsageError extends Error {
  override name = 'UsageError'
}

/**
 * The one line to print for a parseArgs error: its first line, without the
 * hint about positional arguments; for a value that starts with a dash
 * (`--fork-block -1`, which parseArgs calls ambiguous), with the way to give it.
 */
export function usageLine(error: unknown): string {
  const lines = ((error as Error)?.message ?? String(error)).split('\n')
  const first = lines[0]!.replace(/\. To specify.*$/, '')
  const dash = /use '(--[\w-]+)=-XYZ'/.exec(lines.at(-1) ?? '')
  return dash ? `${first.replace(/\.$/, '')}: a value starting with a dash is written ${dash[1]}=-…` : first
}

/** Parses the arguments of `devnet start`; UsageError names a bad flag. */
export function parseStartArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: startFlags, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(usageLine(error))
  }
}

const int = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`invalid value for --${name}: ${JSON.stringify(value)} (expected an integer)`)
  return Number(value)
}

/** The config layer that the flags give. */
export function flagLayer(values: StartValues): ConfigInput {
  const cli: ConfigInput = {}
  if (values.port !== undefined) cli.port = int('port', values.port)
  if (values.host !== undefined) cli.host = values.host
  if (values['chain-id'] !== undefined) cli.chainId = int('chain-id', values['chain-id'])
  if (values['block-time'] !== undefined) cli.blockTime = int('block-time', values['block-time'])
  if (values['preconf-interval'] !== undefined) cli.preconfInterval = int('preconf-interval', values['preconf-interval'])
  if (values.mining !== undefined) cli.mining = values.mining as 'interval'
  if (values.clock !== undefined) cli.clock = values.clock as 'wall'
  if (values.preset !== undefined) cli.preset = values.preset
  if (values.genesis !== undefined) cli.genesis = values.genesis
  if (values.import !== undefined) cli.import = values.import
  if (values.forkchoice !== undefined) cli.forkchoice = values.forkchoice
  if (values.fixture !== undefined) cli.fixture = values.fixture
  if (values['dump-fixture'] !== undefined) cli.dumpFixture = values['dump-fixture']
  const fork = forkFlags(values)
  if (fork) cli.fork = fork
  if (values['no-ui']) cli.ui = false
  if (values['fixtures-dir'] !== undefined) cli.fixturesDir = values['fixtures-dir']
  if (values['allow-fs']) cli.allowFs = true
  if (values.debug) cli.debug = true
  if (values.quiet) cli.quiet = true
  return cli
}

/** How each key of the flag layer is spelled on the command line, for warnings. */
export const flagName = (path: string) => flagNames[path] ?? `--${path}`
const flagNames: Record<string, string> = {
  port: '--port', host: '--host', chainId: '--chain-id', blockTime: '--block-time',
  preconfInterval: '--preconf-interval', mining: '--mining', clock: '--clock', preset: '--preset',
  genesis: '--genesis', import: '--import', forkchoice: '--forkchoice', fixture: '--fixture',
  dumpFixture: '--dump-fixture', fork: '--fork-url', ui: '--no-ui', fixturesDir: '--fixtures-dir', allowFs: '--allow-fs', debug: '--debug', quiet: '--quiet',
}

/**
 * What `devnet start` passes to startDevnet: the config file (--config, else
 * ./devnet.config.json when present) as the file layer, the flags as the
 * layer above it, and the library's defaults under both (port 8545, not
 * startDevnet's 0).
 */
export function startInputs(values: StartValues, hooks: { onWarning?: (line: string) => void } = {}): {
  options: DevnetOptions
  sources: ConfigSources
} {
  const configFile = values.config ?? (existsSync('devnet.config.json') ? 'devnet.config.json' : undefined)
  return {
    options: { configFile },
    sources: {
      base: {},
      flags: { input: flagLayer(values), source: 'flags', keyName: flagName },
      onWarning: hooks.onWarning,
    },
  }
}

/** The `fork` key of the flag layer: only the --fork-* flags given, over the file's `fork` key by key. */
function forkFlags(values: StartValues): ConfigInput['fork'] {
  const block = values['fork-block']
  if (block !== undefined && block !== 'latest' && !/^\d+$/.test(block))
    throw new UsageError(`invalid value for --fork-block: ${JSON.stringify(block)} (expected an integer or "latest")`)
  const fork: Record<string, unknown> = {}
  if (values['fork-url'] !== undefined) fork.url = values['fork-url']
  if (block !== undefined) fork.blockNumber = block
  if (values['fork-cache'] !== undefined) fork.cacheDir = values['fork-cache']
  if (values['fork-chain-id'] !== undefined) fork.chainId = int('fork-chain-id', values['fork-chain-id'])
  if (values['fork-offline']) fork.offline = true
  if (Object.keys(fork).length === 0) return undefined
  return fork as ConfigInput['fork']
}

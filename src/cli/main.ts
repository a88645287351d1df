import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { formatEther } from 'viem/utils'
import { ConfigError, type ConfigInput, readConfigFile } from '../config/load.js'
import { startDevnet } from '../index.js'
import { exposureWarning } from './exposure.js'

const help = `Usage: devnet start [options]
       devnet fixture save|load|inspect FILE [options]   (devnet fixture --help)

Options:
  --port N               port to listen on (0 = any free port; default 8545)
  --host HOST            interface to bind (default 127.0.0.1; the devnet holds unlocked keys)
  --config FILE          config file (default ./devnet.config.json when present)
  --chain-id N           chain id (default 31337)
  --block-time MS        block time in interval mining (default 2000)
  --preconf-interval MS  pre-confirmation tick (default 200)
  --mining MODE          interval | auto | manual (default interval)
  --clock KIND           wall | virtual (default wall)
  --preset NAME          base-sepolia: chain id 84532, token at Base Sepolia's USDC address
  --genesis FILE         geth-format genesis to start from
  --import FILE          RLP chain to import and execute on top of --genesis
  --forkchoice FILE      engine_forkchoiceUpdated request naming head, safe and finalized
  --fixture FILE         start from a fixture (its chain id, hardfork, accounts and
                         token replace the config's; port, mining and clock stay)
  --dump-fixture FILE    write the chain to FILE as a fixture on exit (SIGINT/SIGTERM)
  --fixtures-dir DIR     where devnet_dumpFixture / devnet_loadFixture paths resolve (default ./fixtures)
  --allow-fs             let JSON-RPC fixture paths go anywhere (absolute, ..) instead
  --debug                send internal error details to clients
  --quiet                print only the listening line
  --version              print the version
  --help                 this text
`

const flags = {
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
  'fixtures-dir': { type: 'string' },
  'allow-fs': { type: 'boolean' },
  debug: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const

const fail = (message: string): never => {
  console.error(`devnet: ${message}`)
  process.exit(2)
}

const int = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) fail(`invalid value for --${name}: ${JSON.stringify(value)} (expected an integer)`)
  return Number(value)
}

async function main(argv: string[]) {
  if (argv[0] === 'fixture') {
    const { runFixtureCommand } = await import('./fixture.js')
    return runFixtureCommand(argv.slice(1), fail)
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof flags; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    return fail((error as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''))
  }
  const { values, positionals } = parsed
  if (values.help) {
    process.stdout.write(help)
    return
  }
  if (values.version) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    console.log(pkg.version)
    return
  }
  const command = positionals[0] ?? 'start'
  if (command !== 'start' || positionals.length > 1) fail(`unknown command "${positionals.join(' ')}" (try: devnet start --help)`)

  let file: ConfigInput | undefined
  try {
    const path = values.config ?? 'devnet.config.json'
    file = values.config !== undefined || existsQuiet(path) ? readConfigFile(path) : undefined
  } catch (error) {
    return fail((error as Error).message)
  }
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
  if (values['fixtures-dir'] !== undefined) cli.fixturesDir = values['fixtures-dir']
  if (values['allow-fs']) cli.allowFs = true
  if (values.debug) cli.debug = true
  if (values.quiet) cli.quiet = true

  let devnet: Awaited<ReturnType<typeof startDevnet>>
  try {
    // Flags win over the file; `mining` given as a word must keep the file's block time.
    devnet = await startDevnet({ ...file, port: file?.port ?? 8545, ...cli })
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.shortMessage)
    const name = (error as Error).name
    if (name === 'FixtureError' || name === 'FixtureFileError')
      return fail(`fixture ${cli.fixture ?? file?.fixture}: ${(error as Error & { shortMessage?: string }).shortMessage ?? (error as Error).message}`)
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return fail(`port already in use: ${(error as Error).message}`)
    throw error
  }
  const { config } = devnet
  if (!config.quiet) {
    const lines = [
      '',
      '   devnet: a local chain with 200 ms pre-confirmations',
      '',
      `Chain ID:        ${config.chainId}`,
      `RPC URL:         ${devnet.url}`,
      `Mining:          ${config.mining.type}${config.mining.type === 'interval' ? ` (block time ${config.mining.blockTime} ms, pre-confirmation every ${config.mining.preconfInterval} ms)` : ''}`,
      `Block time:      ${config.blockTime} ms`,
      `Pre-confirm:     every ${config.preconfInterval} ms`,
      `Clock:           ${config.clock}`,
      ...(config.fixture ? [`Fixture:         ${config.fixture} (head ${devnet.node.chain.height()})`] : []),
      ...(config.dumpFixture ? [`Dump on exit:    ${config.dumpFixture}`] : []),
      `Token:           ${config.token.name} (${config.token.symbol}) at ${config.token.address}`,
      '',
      'Available accounts',
      '==================',
      ...devnet.accounts.map((a, i) => `(${i}) ${a.address} (${formatEther(config.balance)} ETH)`),
      '',
      'Private keys',
      '==================',
      ...devnet.accounts.map((a, i) => `(${i}) ${a.privateKey}`),
      '',
      `Mnemonic:        ${config.mnemonic}`,
      '',
    ]
    console.log(lines.join('\n'))
  }
  console.log(`Listening on ${devnet.url}`)
  const warning = exposureWarning(config.host)
  if (warning) console.warn(warning)

  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    await devnet.close()
    process.exit(0)
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

function existsQuiet(path: string) {
  try {
    readFileSync(path)
    return true
  } catch {
    return false
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error('devnet:', error)
  process.exit(1)
})

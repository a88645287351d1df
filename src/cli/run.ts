import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { formatEther } from 'viem/utils'
import { readConfigFile } from '../config/load.js'
import { serveListening, startDevnet } from '../index.js'
import type { Listening } from '../server/listenFirst.js'
import { parseStartArgs, startInputs } from './start.js'
import { userErrorMessage } from './userError.js'
import { exposureWarning } from './exposure.js'
import { applyHeapSettings, heapSettings } from './heap.js'
import { applyTieringSettings, tieringSettings } from './tiering.js'

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
                         (beats the config file's chainId and token; a contradiction is warned)
  --genesis FILE         geth-format genesis to start from (mines manually unless --mining)
  --import FILE          RLP chain to import and execute on top of --genesis
  --forkchoice FILE      engine_forkchoiceUpdated request naming head, safe and finalized
  --fixture FILE         start from a fixture (its chain id, hardfork, accounts and
                         token replace the config's; port, mining and clock stay)
  --dump-fixture FILE    write the chain to FILE as a fixture on exit (SIGINT/SIGTERM)
  --no-ui                do not serve the live page on GET / (JSON-RPC only)
  --x402-facilitator     also serve an x402 facilitator (exact scheme) for this chain,
                         settling from the last dev account
  --x402-port N          its port (default 8402; 0 = any free port); implies --x402-facilitator
  --x402-wait-for WHEN   preconfirmed | sealed: the receipt /settle answers on (default preconfirmed)
  --fork-url URL         fork a live chain: its state and history are read lazily from URL
  --fork-block N|latest  the fork block (default latest)
  --fork-cache DIR       where upstream reads are cached (default ~/.devnet/fork-cache)
  --fork-chain-id N      re-id the fork (default: the upstream's chain id)
  --fork-offline         read only the fork cache (replay a recorded fork without the upstream)
  --fixtures-dir DIR     where devnet_dumpFixture / devnet_loadFixture paths resolve (default ./fixtures)
  --allow-fs             let JSON-RPC fixture paths go anywhere (absolute, ..) instead
  --debug                send internal error details to clients; print stack traces
  --quiet                print only the listening line
  --version              print the version
  --help                 this text

Precedence: defaults < config file < flags, key by key (--block-time beats the
file's mining.blockTime). A bad flag, config, fixture or import prints one line
and exits 2.
`

const fail = (message: string): never => {
  console.error(`devnet: ${message}`)
  process.exit(2)
}

/**
 * The whole command line: `devnet start` and its flags, `devnet fixture ...`,
 * `--help`, `--version`. `listening`: a server the front bundle already
 * opened for this very `start` (src/cli/front.ts), with its config resolved
 * and its warnings printed: the node is built behind it instead of a new one.
 */
export function runCli(argv: string[], listening?: Listening | undefined): void {
  main(argv, listening).catch(failWith)
}

async function main(argv: string[], listening: Listening | undefined) {
  if (argv[0] === 'fixture') {
    const { runFixtureCommand } = await import('./fixture.js')
    return runFixtureCommand(argv.slice(1), fail)
  }
  let parsed: ReturnType<typeof parseStartArgs>
  try {
    parsed = parseStartArgs(argv)
  } catch (error) {
    return fail((error as Error).message)
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

  debug = values.debug === true
  const x402 = values['x402-facilitator'] || values['x402-port'] !== undefined
  const x402Port = values['x402-port'] === undefined ? 8402 : Number(values['x402-port'])
  if (!Number.isSafeInteger(x402Port) || x402Port < 0 || x402Port > 65535)
    fail(`invalid value for --x402-port: ${JSON.stringify(values['x402-port'])} (expected a port number)`)
  const waitFor = values['x402-wait-for']
  if (waitFor !== undefined && waitFor !== 'preconfirmed' && waitFor !== 'sealed')
    fail(`invalid value for --x402-wait-for: ${JSON.stringify(waitFor)} (expected preconfirmed or sealed)`)
  // Read (and a bad value refused) before starting; applied once the node is served, below.
  let heap: ReturnType<typeof heapSettings>
  let tiering: ReturnType<typeof tieringSettings>
  try {
    heap = heapSettings(process.env, process.execArgv)
    tiering = tieringSettings(process.env, process.execArgv)
  } catch (error) {
    return fail((error as Error).message)
  }
  let devnet: Awaited<ReturnType<typeof startDevnet>>
  try {
    const { options, sources } = startInputs(values, { onWarning: (line) => console.error(`devnet: warning: ${line}`) })
    // Named in a fixture error's line (the error itself does not carry the path).
    fixture = values.fixture ?? (options.configFile ? readConfigFile(options.configFile).fixture : undefined)
    if (listening) devnet = await serveListening(listening)
    else {
      if (values['fork-url'] !== undefined) console.error('devnet: forking, reading the upstream chain...')
      devnet = await startDevnet(options, sources)
    }
  } catch (error) {
    return failWith(error)
  }
  const { config } = devnet
  if (!config.quiet) {
    const lines = [
      '',
      `   devnet: a local chain with ${config.preconfInterval} ms pre-confirmations`,
      '',
      `Chain ID:        ${devnet.node.chainId}`,
      ...forkBanner(devnet.node),
      `RPC URL:         ${devnet.url}`,
      `Mining:          ${config.mining.type}${config.mining.type === 'interval' ? ` (block time ${config.mining.blockTime} ms, pre-confirmation every ${config.mining.preconfInterval} ms)` : ''}`,
      `Block time:      ${config.blockTime} ms`,
      `Pre-confirm:     every ${config.preconfInterval} ms`,
      `Clock:           ${config.clock}`,
      ...(config.fixture ? [`Fixture:         ${config.fixture} (head ${devnet.node.chain.height()})`] : []),
      ...(config.dumpFixture ? [`Dump on exit:    ${config.dumpFixture}`] : []),
      devnet.node.fork
        ? `Token:           whatever the upstream holds at ${config.token.address} (no predeploy on a fork)`
        : `Token:           ${config.token.name} (${config.token.symbol}) at ${config.token.address}`,
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
  if (!config.quiet && config.ui) console.log(`Live page:       ${devnet.url}/ (open in a browser; --no-ui turns it off)\n`)
  // Started before the listening line, so whoever waits for it finds both up.
  const facilitator = x402 ? await startX402(devnet, x402Port, waitFor as 'sealed' | undefined) : undefined
  // The handlers go in before the listening line: a supervisor that signals as soon as it reads the line
  // (a test harness, CI) otherwise could kill the process by the default action, with no --dump-fixture.
  let closing = false
  const shutdown = async () => {
    if (closing) return
    closing = true
    await facilitator?.close()
    await devnet.close()
    process.exit(0)
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
  console.log(`Listening on ${devnet.url}`)
  // After both bundles were compiled from their code caches (V8 stamps a cache with the flags in force), and a
  // moment after the node is served, out of the way of a client's first requests: neither flag matters before the
  // first full collection, which a plain or fork start does not reach (--trace-gc: scavenges only).
  setTimeout(() => applyHeapSettings(heap), 500).unref()
  // The interrupt budget matters from a client's first transactions, which may come at once: set in the next turn.
  // A timer rather than an immediate: a fork's first reads, dispatched as the node is served, send their upstream
  // batch from an immediate queued after this point (src/node/fork/remote.ts), and setting the flag (loading
  // node:v8, ~3 ms) before it would hold the batch back; in the next timers phase it runs while the upstream answers.
  setTimeout(() => applyTieringSettings(tiering), 0)
  const warning = exposureWarning(config.host)
  if (warning) console.warn(warning)
}

/**
 * The banner lines of a fork. A fork keeps the upstream's chain id, as every
 * peer does, so a signature made here (a transfer authorization, a permit)
 * is valid on the real chain: said plainly, with the way out.
 */
function forkBanner(node: Awaited<ReturnType<typeof startDevnet>>['node']): string[] {
  const fork = node.fork
  if (!fork) return []
  const reid = node.chainId !== fork.upstreamChainId
  return [
    `Fork:            ${fork.upstream} at block ${fork.blockNumber} (${fork.blockHash})`,
    `Fork cache:      ${fork.cache.file ?? 'memory only'}${node.config.fork?.offline ? ' (offline: only what it recorded)' : ''}${fork.cache.dropped ? ' (started again: it held another chain at this chain id and block)' : ''}`,
    reid
      ? `Chain ID:        re-id'd from ${fork.upstreamChainId}: signatures made here are not valid on the upstream chain`
      : `WARNING:         this fork keeps chain id ${fork.upstreamChainId}: anything signed here (transactions, EIP-3009`,
    ...(reid
      ? []
      : [
          '                 authorizations, permits) is valid on the real chain too. Use test keys only,',
          '                 or --fork-chain-id N to re-id the fork.',
        ]),
  ]
}

/**
 * A start that fails on the user's input (a flag, the config, a fixture, an
 * import, a port in use) prints one line naming what is wrong and exits 2;
 * anything else is a devnet bug, printed in one line too. `--debug` adds the
 * stack trace (and its causes).
 */
function failWith(error: unknown): never {
  const user = userErrorMessage(error, { fixture })
  const first = ((error as Error)?.message ?? String(error)).split('\n')[0]
  console.error(`devnet: ${user ?? `internal error: ${first}${debug ? '' : ' (run with --debug for the stack trace)'}`}`)
  if (debug) console.error(inspect(error, { depth: 6 }))
  process.exit(user === undefined ? 1 : 2)
}

/** The x402 facilitator beside the node: JSON-RPC only, settling from the last dev account. */
async function startX402(devnet: Awaited<ReturnType<typeof startDevnet>>, port: number, waitFor: 'preconfirmed' | 'sealed' | undefined) {
  const { startFacilitator } = await import('../x402/server.js')
  const account = devnet.accounts.at(-1)
  if (!account) return fail('--x402-facilitator needs at least one dev account to settle from')
  try {
    const started = await startFacilitator({ rpcUrl: devnet.url, account: account.privateKey, host: devnet.config.host, port, waitFor })
    console.log(`x402 facilitator on ${started.url} (exact, ${started.facilitator.network}, settles from ${account.address}, answers on the ${waitFor ?? 'preconfirmed'} receipt)`)
    return started
  } catch (error) {
    await devnet.close()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return fail(`x402 port already in use: ${(error as Error).message}`)
    throw error
  }
}

let debug = false
let fixture: string | undefined

import { readFile } from 'node:fs/promises'
import type { Chain as ViemChain } from 'viem'
import { defineChain } from 'viem/utils'
import { type ConfigLayer, resolveLayers } from './config/layers.js'
import { ConfigError, type ConfigInput, readConfigFile } from './config/load.js'
import type { DevnetConfig } from './config/schema.js'
import { ChainImportError, importGethChain, loadGethGenesis, readForkchoice } from './evm/engine.js'
import { readFixtureFile } from './node/fixture/file.js'
import type { LoadableFixture } from './node/fixture/format.js'
import { configWithFixture } from './node/fixture/load.js'
import { type ImportedChain, type Node, createNode } from './node/node.js'
import type { DevnetRequestFn } from './client/schema.js'
import { type Dispatcher, createDispatcher } from './rpc/dispatch.js'
import { allMethods } from './rpc/registry.js'
import { toRpcError } from './rpc/toRpcError.js'
import { createHttpApp, listen } from './server/http.js'
import { createCheckAuthorizationMethod } from './ui/checkAuthorization.js'

export { type DevnetActions, devnetActions } from './client/actions.js'
export { type DevnetMethod, type DevnetRequestFn, type DevnetRpcSchema, devnetMethodNames } from './client/schema.js'
export type * from './client/wireTypes.js'
export { loadConfig } from './config/layers.js'
export type { ConfigLayer } from './config/layers.js'
export type { ConfigInput } from './config/load.js'
export { defaultConfig, defaultMnemonic, defaultTokenAddress, type DevnetConfig } from './config/schema.js'

/** Options of createDevnet / startDevnet: any devnet.config.json key, plus a config file to read first. */
export type DevnetOptions = ConfigInput & {
  /** A config file layered under these options. */
  configFile?: string | undefined
}

/**
 * An EIP-1193 request function typed by devnet's RPC schema: an unknown
 * method or wrong params fail to compile, the result is typed. Resolves with
 * the result, throws `{ code, message, data }` errors.
 */
export type RequestFn = DevnetRequestFn

/** An RPC error as EIP-1193 providers throw it (viem maps `code` to its error classes). */
export class ProviderRpcError extends Error {
  override name = 'ProviderRpcError'
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

/** A devnet running in this process, without a socket. */
export type Devnet = {
  config: DevnetConfig
  node: Node
  /** EIP-1193 request function: pass `devnet` or `{ request }` to viem's `custom()` transport. */
  request: RequestFn
  /** The raw JSON-RPC response(s) for a raw payload (a request object or a batch). */
  requestRaw(payload: unknown): Promise<unknown>
  /** A viem chain object for this devnet. */
  chain: ViemChain
  token: { address: `0x${string}` }
  accounts: { address: `0x${string}`; privateKey: `0x${string}` }[]
  /** Seals a block now; resolves with its number and hash. */
  seal(): Promise<{ number: bigint; hash: `0x${string}` }>
  /** Runs a pre-confirmation tick now. */
  preconfirm(): Promise<{ number: bigint; index: number; transactions: `0x${string}`[] }>
  close(): Promise<void>
}

/**
 * Runs one step of an import on the file `path` (`what`: genesis, import,
 * forkchoice). A file that cannot be read or parsed, or whose content the
 * importer refuses, becomes a ChainImportError naming the file, the block or
 * field, and the problem; anything else is a bug and passes unchanged.
 */
async function importStep<T>(what: string, path: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    const e = error as Error & { code?: unknown; shortMessage?: string }
    if (!(error instanceof ChainImportError || error instanceof SyntaxError || typeof e.code === 'string')) throw error
    const problem = (e.shortMessage ?? e.message).replace(/^(genesis|forkchoice): /, '')
    throw new ChainImportError(`${what} ${path}: ${problem}`, { cause: error })
  }
}

async function importFiles(config: DevnetConfig): Promise<ImportedChain | undefined> {
  if (!config.genesis) return undefined
  const { genesis: genesisPath, import: chainPath, forkchoice: forkchoicePath } = config
  const genesis = await importStep('genesis', genesisPath, async () =>
    loadGethGenesis(JSON.parse(await readFile(genesisPath, 'utf8'))),
  )
  const blocks = chainPath
    ? await importStep('import', chainPath, async () => importGethChain(genesis, new Uint8Array(await readFile(chainPath))))
    : []
  let safe: bigint | undefined
  let finalized: bigint | undefined
  if (forkchoicePath) {
    const fc = await importStep('forkchoice', forkchoicePath, async () =>
      readForkchoice(JSON.parse(await readFile(forkchoicePath, 'utf8'))),
    )
    const numberOf = (hash: string) =>
      blocks.find((b) => `0x${Buffer.from(b.block.hash()).toString('hex')}` === hash.toLowerCase())?.block.header.number
    safe = numberOf(fc.safe)
    finalized = numberOf(fc.finalized)
  }
  return {
    common: genesis.common,
    state: genesis.stateManager,
    genesisBlock: genesis.genesisBlock,
    blocks,
    safe,
    finalized,
  }
}

/**
 * Where settings come from besides the options, lowest first: the caller's
 * defaults (under the config file), the config file, the CLI's flags (between
 * the file and the options). What the CLI adds to the options.
 */
export type ConfigSources = {
  /** Defaults of the caller, under the config file: startDevnet's port 0. */
  base?: ConfigInput | undefined
  /** The CLI's flags, above the config file and below the options. */
  flags?: ConfigLayer | undefined
  /** Receives each one-line warning (a preset contradicting a key); default: printed to stderr. */
  onWarning?: ((line: string) => void) | undefined
}

/**
 * Resolves options into a config: defaults < config file < flags < options,
 * key by key (src/config/layers.ts). An import switches to manual mining
 * unless told otherwise.
 */
export async function resolveConfig(options: DevnetOptions = {}, sources: ConfigSources = {}): Promise<DevnetConfig> {
  const { configFile, ...rest } = options
  const layers: ConfigLayer[] = [
    { input: sources.base, source: 'defaults' },
    { input: configFile ? readConfigFile(configFile) : undefined, source: configFile ?? '' },
    ...(sources.flags ? [sources.flags] : []),
    { input: rest, source: 'options', keyName: (path) => `options.${path}` },
  ]
  const { config, warnings } = resolveLayers(layers)
  for (const line of warnings) (sources.onWarning ?? ((l: string) => console.error(`devnet: warning: ${l}`)))(line)
  return config
}

/**
 * Creates a devnet in this process, with no socket. Many instances never
 * share state.
 */
export async function createDevnet(options: DevnetOptions = {}, sources: ConfigSources = {}): Promise<Devnet> {
  const { config, node } = await buildNode(await resolveConfig(options, sources))
  return withDispatcher({ config, node }).devnet
}

/**
 * The dispatcher over every method, and the devnet around it.
 * devnet_checkAuthorization runs the payments library through this very
 * dispatcher (src/ui/checkAuthorization.ts), hence the late binding.
 */
/** The devnet's current node and config (a re-fork replaces both); `reforked` runs after it did. */
type Holder = { config: DevnetConfig; node: Node; reforked?: (() => void) | undefined }

function withDispatcher(holder: Holder) {
  const { config } = holder
  let devnet: Devnet | undefined
  const check = createCheckAuthorizationMethod({ request: () => devnet!.request, token: config.token.address })
  // Requests reach the holder's node: the one a re-fork put there, whichever transport asked for it.
  const dispatcher = createDispatcher(holder.node, [...allMethods, check], { debug: config.debug, refork: reforker(holder), follow: () => holder.node })
  devnet = wrap(holder, dispatcher)
  return { dispatcher, devnet }
}

/**
 * anvil_reset with `forking`: builds a node forking the given URL and block
 * with the same settings, closes the old one and puts the new one in its
 * place (the Devnet's `node` follows).
 */
function reforker(holder: Holder) {
  return async (forking: { url: string; blockNumber: bigint | 'latest' }) => {
    const previous = holder.config.fork
    const fork = { url: forking.url, blockNumber: forking.blockNumber, cacheDir: previous?.cacheDir, chainId: previous?.chainId, offline: previous?.offline ?? false }
    const next = await buildNode(Object.freeze({ ...holder.config, fork, fixture: undefined, genesis: undefined }))
    await holder.node.close()
    holder.config = next.config
    holder.node = next.node
    holder.reforked?.()
    return next.node
  }
}

/**
 * Creates the node: from the dev genesis, a geth import, or a fixture
 * (`fixture` in the config). A fixture's chain-defining settings (chain id,
 * hardfork, accounts, token, ...) override the config's, the way a geth
 * genesis does; runtime settings (port, mining, clock kind) stay.
 */
async function buildNode(resolved: DevnetConfig): Promise<{ config: DevnetConfig; node: Node }> {
  let fixture: LoadableFixture | undefined
  if (resolved.fixture) {
    if (resolved.genesis) throw new ConfigError('"fixture" and "genesis" cannot be combined: a fixture holds its own genesis')
    fixture = (await readFixtureFile(resolved.fixture)).fixture
  }
  const config = fixture ? configWithFixture(resolved, fixture) : resolved
  if (config.fork || fixture?.fork) {
    if (config.genesis || (fixture && !fixture.fork))
      throw new ConfigError('"fork" cannot be combined with "genesis" or with a fixture of a chain from genesis')
    const { openFork } = await import('./node/fork/open.js')
    const { recordedFork } = await import('./node/fixture/fork.js')
    const { deriveAccounts } = await import('./node/accounts.js')
    // A fixture of a fork reopens it over the reads it recorded (a fork URL, if given, only reads what they lack).
    const recorded = fixture?.fork && recordedFork(fixture.fork)
    const { fork, imported } = await openFork(config, deriveAccounts(config.mnemonic, config.accounts), recorded)
    // The config says the chain id the fork runs under: the upstream's, or --fork-chain-id's.
    const forked = Object.freeze({ ...config, chainId: imported.common.chainId() })
    const node = await createNode(forked, { imported, fork })
    if (fixture) await node.loadFixture(fixture)
    return { config: forked, node }
  }
  const imported = await importFiles(config)
  const node = await createNode(config, { imported })
  if (fixture) await node.loadFixture(fixture)
  return { config, node }
}

function wrap(holder: { config: DevnetConfig; node: Node }, dispatcher: Dispatcher): Devnet {
  const { config } = holder
  // The dispatcher decodes every method's params itself; the schema types the caller's side.
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    try {
      return await dispatcher.call(method, params ?? [])
    } catch (error) {
      const e = toRpcError(error, { debug: config.debug, log: (x) => console.error('devnet: internal error:', x) })
      throw new ProviderRpcError(e.code, e.message, 'data' in e ? e.data : undefined)
    }
  }) as DevnetRequestFn
  const chain = defineChain({
    id: Number(holder.node.chainId),
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [`http://${config.host}:${config.port}`] } },
  })
  return {
    get config() {
      return holder.config
    },
    get node() {
      return holder.node
    },
    request,
    requestRaw: (payload) => dispatcher.handle(payload),
    chain,
    token: { address: config.token.address },
    accounts: holder.node.accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
    async seal() {
      const block = await holder.node.seal()
      return { number: block.number, hash: block.hash }
    },
    async preconfirm() {
      const { snapshot, added } = await holder.node.preconfirm()
      return { number: snapshot.number, index: snapshot.index, transactions: added }
    },
    async close() {
      // `dumpFixture` in the config: the chain is written on the way out (CLI --dump-fixture).
      await holder.node.close()
      if (config.dumpFixture) await holder.node.dumpFixtureToFile(config.dumpFixture)
    },
  }
}

/** A devnet served over HTTP (and WebSocket) on host:port; port 0 picks a free port. */
export type StartedDevnet = Devnet & { url: string; wsUrl: string; port: number }

/**
 * Starts a devnet with a JSON-RPC server. Binds to 127.0.0.1 and a free port
 * unless told otherwise (a port in the config file counts).
 */
export async function startDevnet(options: DevnetOptions = {}, sources: ConfigSources = {}): Promise<StartedDevnet> {
  const { config, node } = await buildNode(await resolveConfig(options, { base: { port: 0 }, ...sources }))
  const holder: Holder = { config, node }
  const { dispatcher, devnet } = withDispatcher(holder)
  // The live page (`ui`, on by default): routes only; nothing listens to the node until a browser subscribes.
  const routes = config.ui ? (await import('./ui/serve.js')).createPageRoutes() : undefined
  const app = createHttpApp(dispatcher, config, routes)
  const server = await listen(app, config)
  const attach = (await import('./server/ws.js').catch(() => undefined))?.attachWebSocket
  // WebSocket requests and open subscriptions follow a re-fork (anvil_reset with forking) to the new node.
  const ws = attach?.(server.server, dispatcher, () => holder.node, { refork: reforker(holder) })
  holder.reforked = () => ws?.rebind()
  const url = server.url
  const started: StartedDevnet = {
    ...devnet,
    chain: { ...devnet.chain, rpcUrls: { default: { http: [url] } } },
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    port: server.port,
    async close() {
      ws?.close()
      await holder.node.close()
      if (config.dumpFixture) await holder.node.dumpFixtureToFile(config.dumpFixture)
      await server.close()
    },
  }
  // The spread copied `node` and `config` once: keep them following a refork.
  Object.defineProperty(started, 'node', { get: () => holder.node, enumerable: true })
  Object.defineProperty(started, 'config', { get: () => holder.config, enumerable: true })
  return started
}

export type { Node }

import type { Duplex } from 'node:stream'
import type { Chain as ViemChain } from 'viem'
import { type ConfigLayer, resolveLayers } from './config/layers.js'
import { type ConfigInput, readConfigFile } from './config/load.js'
import type { DevnetConfig } from './config/schema.js'
import type { DevnetRequestFn } from './client/schema.js'
import type { Node } from './node/node.js'
import { type Responder, createStartupDispatcher } from './rpc/startupDispatcher.js'
import { type StaticRoutes, createHttpApp, listen } from './server/http.js'

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

export { ProviderRpcError } from './errors/providerRpcError.js'

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
  const config = await resolveConfig(options, sources)
  const { createDevnetFromConfig } = await import('./devnet.js')
  return createDevnetFromConfig(config)
}

/** A devnet served over HTTP (and WebSocket) on host:port; port 0 picks a free port. */
export type StartedDevnet = Devnet & { url: string; wsUrl: string; port: number }

/**
 * Starts a devnet with a JSON-RPC server. Binds to 127.0.0.1 and a free port
 * unless told otherwise (a port in the config file counts).
 */
export async function startDevnet(options: DevnetOptions = {}, sources: ConfigSources = {}): Promise<StartedDevnet> {
  const config = await resolveConfig(options, { base: { port: 0 }, ...sources })
  // The socket opens first; requests wait for the node (src/rpc/startupDispatcher.ts), which is built after it.
  const ready = deferred<{ dispatcher: Responder; routes: StaticRoutes | undefined }>()
  // A fork's first upstream reads (chain id, fork block) travel while the engine loads (node/fork/handshake.ts).
  // (Imported only then: it loads the upstream client, which a start without a fork does not need.)
  const handshake = config.fork && !config.fixture ? (await import('./node/fork/handshake.js')).beginForkHandshake(config.fork) : undefined
  // A chain id the config alone decides: the dev chain's, or a fork's once its upstream (or cache, or --fork-chain-id) tells it.
  // (A fixture or a geth genesis brings its own.)
  const chainId = config.fixture || config.genesis ? undefined : handshake ? (config.fork!.chainId ?? handshake.chainId) : config.chainId
  const dispatcher = createStartupDispatcher(chainId, ready.promise.then((r) => r.dispatcher))
  const routes: StaticRoutes | undefined = config.ui
    ? (path, html) => ready.promise.then((r) => r.routes?.(path, html))
    : undefined
  const server = await listen(createHttpApp(dispatcher, config, routes), config).catch((error: unknown) => {
    // Its kept-alive sockets would hold the process open.
    handshake?.remote.close()
    throw error
  })
  const held: [request: unknown, socket: Duplex, head: Buffer][] = []
  const hold = (request: unknown, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    held.push([request, socket, head])
  }
  server.server.on('upgrade', hold)
  try {
    const { serveDevnet } = await loadInSteps()
    const served = await serveDevnet(
      config,
      server,
      () => {
        server.server.off('upgrade', hold)
        return held.splice(0)
      },
      handshake,
    )
    ready.resolve(served)
    return served.started
  } catch (error) {
    ready.reject(error)
    handshake?.remote.close()
    for (const [, socket] of held) socket.destroy()
    await server.close()
    throw error
  }
}

/**
 * ./devnet.js, whose loading is most of a start (evaluating @ethereumjs and
 * the EVM speedups, loading the native secp256k1 and keccak bindings):
 * loaded a part at a time (the engine, which the package ships as one private
 * bundle, dist/evm/engine.js; then the node), with the event loop given a few
 * turns between parts, so a request that reaches the
 * listening socket meanwhile (the eth_chainId a client polls a starting node
 * with) is answered after one part rather than after all of them.
 */
async function loadInSteps() {
  for (const part of [() => import('./evm/engine.js'), () => import('./node/node.js')]) {
    await part()
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
  }
  return import('./devnet.js')
}

function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export type { Node }

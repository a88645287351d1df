import type { Chain as ViemChain } from 'viem'
import { type ConfigSources, type DevnetOptions, resolveConfig } from './config/resolve.js'
import type { DevnetConfig } from './config/schema.js'
import type { DevnetRequestFn } from './client/schema.js'
import type { Node } from './node/node.js'
import { type Listening, listenFirst } from './server/listenFirst.js'

export { type DevnetActions, devnetActions } from './client/actions.js'
export { type DevnetMethod, type DevnetRequestFn, type DevnetRpcSchema, devnetMethodNames } from './client/schema.js'
export type * from './client/wireTypes.js'
export { loadConfig } from './config/layers.js'
export type { ConfigLayer } from './config/layers.js'
export type { ConfigInput } from './config/load.js'
export { defaultConfig, defaultMnemonic, defaultTokenAddress, type DevnetConfig } from './config/schema.js'
export { resolveConfig, type ConfigSources, type DevnetOptions } from './config/resolve.js'

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
  return serveListening(await listenFirst(config))
}

/**
 * The second half of startDevnet: builds the devnet behind a server that
 * listenFirst (src/server/listenFirst.ts) opened, and hands the server to
 * it. The CLI calls it directly: its front bundle listens before the rest
 * of the CLI is even read (src/cli/front.ts). Not part of the package's
 * documented API.
 */
export async function serveListening(listening: Listening): Promise<StartedDevnet> {
  try {
    const { serveDevnet } = await loadInSteps()
    const served = await serveDevnet(listening.config, listening.server, listening.takeHeldUpgrades, listening.firstReads)
    listening.serve(served)
    return served.started
  } catch (error) {
    await listening.fail(error)
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

export type { Node }

import { readFile } from 'node:fs/promises'
import type { Chain as ViemChain } from 'viem'
import { defineChain } from 'viem/utils'
import { ConfigError, type ConfigInput, loadConfig } from './config/load.js'
import type { DevnetConfig } from './config/schema.js'
import { dumpFixtureToFile, readFixtureFile } from './node/fixture/file.js'
import type { LoadableFixture } from './node/fixture/format.js'
import { configWithFixture, loadFixture } from './node/fixture/load.js'
import { type ImportedChain, type Node, createNode } from './node/node.js'
import { type Dispatcher, createDispatcher } from './rpc/dispatch.js'
import { allMethods } from './rpc/registry.js'
import { toRpcError } from './rpc/toRpcError.js'
import { createHttpApp, listen } from './server/http.js'

export { loadConfig, type ConfigInput } from './config/load.js'
export { defaultConfig, defaultMnemonic, defaultTokenAddress, type DevnetConfig } from './config/schema.js'

/** Options of createDevnet / startDevnet: any devnet.config.json key, plus a config file to read first. */
export type DevnetOptions = ConfigInput & {
  /** A config file layered under these options. */
  configFile?: string | undefined
}

/** An EIP-1193 request function: resolves with the result, throws `{ code, message, data }` errors. */
export type RequestFn = (args: { method: string; params?: unknown }) => Promise<any>

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

async function importFiles(config: DevnetConfig): Promise<ImportedChain | undefined> {
  if (!config.genesis) return undefined
  const { loadGethGenesis } = await import('./evm/geth/genesis.js')
  const { importChain, readForkchoice } = await import('./evm/geth/importChain.js')
  const genesis = await loadGethGenesis(JSON.parse(await readFile(config.genesis, 'utf8')))
  const blocks = config.import ? await importChain(genesis, new Uint8Array(await readFile(config.import))) : []
  let safe: bigint | undefined
  let finalized: bigint | undefined
  if (config.forkchoice) {
    const fc = readForkchoice(JSON.parse(await readFile(config.forkchoice, 'utf8')))
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

/** Resolves options into a config: defaults < config file < options. An import switches to manual mining unless told otherwise. */
export async function resolveConfig(options: DevnetOptions = {}): Promise<DevnetConfig> {
  const { configFile, ...rest } = options
  const { readConfigFile } = await import('./config/load.js')
  const file = configFile ? readConfigFile(configFile) : undefined
  const layers: ConfigInput[] = []
  if (file) layers.push(file)
  layers.push(rest)
  const config = loadConfig(...layers)
  if (config.genesis && file?.mining === undefined && rest.mining === undefined)
    return loadConfig(...layers, { mining: 'manual' })
  return config
}

/**
 * Creates a devnet in this process, with no socket. Many instances never
 * share state.
 */
export async function createDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const { config, node } = await buildNode(await resolveConfig(options))
  const holder = { config, node }
  const dispatcher = createDispatcher(node, allMethods, { debug: config.debug, refork: reforker(holder) })
  return wrap(holder, dispatcher)
}

/**
 * anvil_reset with `forking`: builds a node forking the given URL and block
 * with the same settings, closes the old one and puts the new one in its
 * place (the Devnet's `node` follows).
 */
function reforker(holder: { config: DevnetConfig; node: Node }) {
  return async (forking: { url: string; blockNumber: bigint | 'latest' }) => {
    const previous = holder.config.fork
    const fork = { url: forking.url, blockNumber: forking.blockNumber, cacheDir: previous?.cacheDir, chainId: previous?.chainId, offline: previous?.offline ?? false }
    const next = await buildNode(Object.freeze({ ...holder.config, fork, fixture: undefined, genesis: undefined }))
    await holder.node.close()
    holder.config = next.config
    holder.node = next.node
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
  if (config.fork) {
    if (config.genesis || fixture) throw new ConfigError('"fork" cannot be combined with "genesis" or "fixture"')
    const { openFork } = await import('./node/fork/open.js')
    const { deriveAccounts } = await import('./node/accounts.js')
    const { fork, imported } = await openFork(config, deriveAccounts(config.mnemonic, config.accounts))
    // The config says the chain id the fork runs under: the upstream's, or --fork-chain-id's.
    const forked = Object.freeze({ ...config, chainId: imported.common.chainId() })
    return { config: forked, node: await createNode(forked, { imported, fork }) }
  }
  const imported = await importFiles(config)
  const node = await createNode(config, { imported })
  if (fixture) await loadFixture(node, fixture)
  return { config, node }
}

function wrap(holder: { config: DevnetConfig; node: Node }, dispatcher: Dispatcher): Devnet {
  const { config } = holder
  const request: RequestFn = async ({ method, params }) => {
    try {
      return await dispatcher.call(method, params ?? [])
    } catch (error) {
      const e = toRpcError(error, { debug: config.debug, log: (x) => console.error('devnet: internal error:', x) })
      throw new ProviderRpcError(e.code, e.message, 'data' in e ? e.data : undefined)
    }
  }
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
      if (config.dumpFixture) await dumpFixtureToFile(holder.node, config.dumpFixture)
    },
  }
}

/** A devnet served over HTTP (and WebSocket) on host:port; port 0 picks a free port. */
export type StartedDevnet = Devnet & { url: string; wsUrl: string; port: number }

/** Starts a devnet with a JSON-RPC server. Binds to 127.0.0.1 and a free port unless told otherwise. */
export async function startDevnet(options: DevnetOptions = {}): Promise<StartedDevnet> {
  const { config, node } = await buildNode(await resolveConfig({ port: 0, ...options }))
  const holder = { config, node }
  const dispatcher = createDispatcher(node, allMethods, { debug: config.debug, refork: reforker(holder) })
  const app = createHttpApp(dispatcher, config)
  const server = await listen(app, config)
  const attach = (await import('./server/ws.js').catch(() => undefined))?.attachWebSocket
  // Subscriptions follow the node the server started with (a refork does not move open subscriptions).
  const ws = attach?.(server.server, dispatcher, node)
  const devnet = wrap(holder, dispatcher)
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
      if (config.dumpFixture) await dumpFixtureToFile(holder.node, config.dumpFixture)
      await server.close()
    },
  }
  // The spread copied `node` and `config` once: keep them following a refork.
  Object.defineProperty(started, 'node', { get: () => holder.node, enumerable: true })
  Object.defineProperty(started, 'config', { get: () => holder.config, enumerable: true })
  return started
}

export type { Node }

/**
 * Builds a devnet from a resolved config: the node (dev genesis, geth import,
 * fixture or fork), the dispatcher over every method, and the Devnet object
 * around them; and serves one on a listening HTTP server.
 *
 * Kept apart from src/index.ts, which loads it with `import()`: this module
 * reaches the whole engine (@ethereumjs, the EVM speedups, every RPC method),
 * and startDevnet opens its socket before loading it, so a start answers its
 * first eth_chainId while this loads and the genesis is built
 * (src/rpc/startupDispatcher.ts).
 */
import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { defineChain } from 'viem/utils'
import { ConfigError } from './config/load.js'
import type { DevnetConfig } from './config/schema.js'
import { ProviderRpcError } from './errors/providerRpcError.js'
import { ChainImportError, importGethChain, keccakReady, loadGethGenesis, readForkchoice } from './evm/engine.js'
import type { DevnetRequestFn } from './client/schema.js'
import type { Devnet, StartedDevnet } from './index.js'
import type { FirstReads } from './node/fork/firstReads.js'
import { readFixtureFile } from './node/fixture/file.js'
import type { LoadableFixture } from './node/fixture/format.js'
import { configWithFixture } from './node/fixture/load.js'
import { type ImportedChain, type Node, createNode } from './node/node.js'
import { type Dispatcher, createDispatcher } from './rpc/dispatch.js'
import { allMethods } from './rpc/registry.js'
import { toRpcError } from './rpc/toRpcError.js'
import type { StaticRoutes } from './server/http.js'
import { createCheckAuthorizationMethod } from './ui/checkAuthorization.js'

/** A devnet in this process, without a socket (createDevnet). */
export async function createDevnetFromConfig(config: DevnetConfig): Promise<Devnet> {
  return withDispatcher(await buildNode(config)).devnet
}

/**
 * Builds the devnet behind `server`, which already listens (startDevnet):
 * the dispatcher and page routes that the server's startup stand-ins wait
 * for, and WebSocket upgrades, including any that came in while building.
 */
export async function serveDevnet(
  config: DevnetConfig,
  server: { server: Server; withServer(use: (server: Server) => void): void; url: string; port: number; close(): Promise<void> },
  heldUpgrades: () => [request: unknown, socket: Duplex, head: Buffer][],
  firstReads?: FirstReads,
): Promise<{ started: StartedDevnet; dispatcher: Dispatcher; routes: StaticRoutes | undefined }> {
  const built = await buildNode(config, firstReads)
  const holder: Holder = { config: built.config, node: built.node }
  const { dispatcher, devnet } = withDispatcher(holder)
  // The live page (`ui`, on by default): routes only; nothing listens to the node until a browser subscribes.
  const routes = holder.config.ui ? (await import('./ui/serve.js')).createPageRoutes() : undefined
  const attach = (await import('./server/ws.js').catch(() => undefined))?.attachWebSocket
  // WebSocket requests and open subscriptions follow a re-fork (anvil_reset with forking) to the new node. Attached
  // when node:http's server is made (an upgrade comes through it), which a start without one never makes.
  let ws: ReturnType<NonNullable<typeof attach>> | undefined
  server.withServer((http) => {
    ws = attach?.(http, dispatcher, () => holder.node, { refork: reforker(holder) })
  })
  holder.reforked = () => ws?.rebind()
  // (Upgrades were held only if node:http's server was made: `ws` is attached to it by now, unless ws failed to load.)
  for (const [request, socket, head] of heldUpgrades()) {
    if (ws) server.server.emit('upgrade', request, socket, head)
    else socket.destroy()
  }
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
      if (built.config.dumpFixture) await holder.node.dumpFixtureToFile(built.config.dumpFixture)
      await server.close()
    },
  }
  // The spread copied `node` and `config` once: keep them following a refork.
  Object.defineProperty(started, 'node', { get: () => holder.node, enumerable: true })
  Object.defineProperty(started, 'config', { get: () => holder.config, enumerable: true })
  return { started, dispatcher, routes }
}

/** The devnet's current node and config (a re-fork replaces both); `reforked` runs after it did. */
type Holder = { config: DevnetConfig; node: Node; reforked?: (() => void) | undefined }

/**
 * The dispatcher over every method, and the devnet around it.
 * devnet_checkAuthorization runs the payments library through this very
 * dispatcher (src/ui/checkAuthorization.ts), hence the late binding.
 */
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
async function buildNode(resolved: DevnetConfig, firstReads?: FirstReads): Promise<{ config: DevnetConfig; node: Node }> {
  // Every hash from here on (a fork's first blocks and accounts too) goes to the WebAssembly keccak, compiled since the
  // engine loaded: the native binding, loaded for a hash asked before it is ready, is then never loaded at all.
  await keccakReady
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
    const { fork, imported } = await openFork(config, deriveAccounts(config.mnemonic, config.accounts), recorded, firstReads)
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
  // In process there is no client to overlap an auto seal's second half with, and callers read the node directly
  // (devnet.node): an answer waits for the pending block's restart (node.settling()), as node.submit does.
  const settled = async <T>(result: T): Promise<T> => {
    const settling = holder.node.settling()
    if (settling) await settling
    return result
  }
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    try {
      return await settled(await dispatcher.call(method, params ?? []))
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
    requestRaw: async (payload) => settled(await dispatcher.handle(payload)),
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
  // Loaded here: a start without a geth genesis does not compile node:fs/promises (src/node/fixture/file.ts says why).
  const { readFile } = await import('node:fs/promises')
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

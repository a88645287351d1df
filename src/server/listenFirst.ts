import type { Duplex } from 'node:stream'
import type { DevnetConfig } from '../config/schema.js'
import { createEarlyReads } from '../node/fork/earlyReads.js'
import { type FirstReads, beginFirstReads } from '../node/fork/firstReads.js'
import { type Responder, createStartupDispatcher } from '../rpc/startupDispatcher.js'
import { type StaticRoutes, createHttpApp, listen } from './http.js'

/** A WebSocket upgrade that came in before the node was served, as node:http emitted it. */
export type HeldUpgrade = [request: unknown, socket: Duplex, head: Buffer]

/** What the node behind a listening server answers with, once it is built. */
export type Served = { dispatcher: Responder; routes: StaticRoutes | undefined }

/** A server listening for a devnet that is not built yet (listenFirst). */
export type Listening = {
  config: DevnetConfig
  server: Awaited<ReturnType<typeof listen>>
  /** A fork's first upstream reads (chain id, fork block), on their way while the engine loads. */
  firstReads: FirstReads | undefined
  /** The upgrades held so far; from now on node:http's own listeners (the node's) take them. */
  takeHeldUpgrades(): HeldUpgrade[]
  /** The node is built: waiting requests and later ones get its answers. */
  serve(served: Served): void
  /** The node cannot be built: held upgrades are dropped and the server closes (waiting requests with it). */
  fail(error: unknown): Promise<void>
  /** Resolves when the engine's next step of loading holds up no early answer (src/rpc/startupDispatcher.ts). */
  idle(maxMs: number): Promise<void>
}

/**
 * The first half of startDevnet (src/index.ts, serveListening the second):
 * the HTTP socket listening for the config, before any of the engine is
 * loaded. Until `serve`, requests wait for the node, except those the config
 * alone answers (src/rpc/startupDispatcher.ts), and WebSocket upgrades are
 * held. A fork's first upstream reads (chain id, fork block;
 * src/node/fork/firstReads.ts) are sent before it listens, so that they
 * travel while the engine loads.
 *
 * Its own module, importing only the config, the transport and the startup
 * dispatcher, so that the CLI's front bundle (src/cli/front.ts) is this and
 * the flag parsing: the process listens before it reads the engine's code.
 */
export async function listenFirst(config: DevnetConfig): Promise<Listening> {
  // Node built-ins and plain data only (scripts/bundle.mjs lets the front take it in): a start without a fork sends nothing.
  const firstReads = config.fork && !config.fixture ? beginFirstReads(config.fork) : undefined
  let settle!: { resolve: (served: Served) => void; reject: (error: unknown) => void }
  const ready = new Promise<Served>((resolve, reject) => (settle = { resolve, reject }))
  // A chain id the config alone decides: the dev chain's, or a fork's once its upstream (or cache, or --fork-chain-id) tells it.
  // (A fixture or a geth genesis brings its own.)
  const chainId = config.fixture || config.genesis ? undefined : firstReads ? (config.fork!.chainId ?? firstReads.chainId) : config.chainId
  // A fork's account reads, answered from the upstream or the cache while the engine loads.
  const early = firstReads ? createEarlyReads(firstReads, config) : undefined
  const dispatcher = createStartupDispatcher(chainId, ready.then((r) => r.dispatcher), early)
  const routes: StaticRoutes | undefined = config.ui ? (path, html) => ready.then((r) => r.routes?.(path, html)) : undefined
  const server = await listen(createHttpApp(dispatcher, config, routes), config).catch((error: unknown) => {
    // Its kept-alive sockets would hold the process open.
    firstReads?.transport.close()
    throw error
  })
  const held: HeldUpgrade[] = []
  const hold = (request: unknown, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    held.push([request, socket, head])
  }
  // On node:http's server once it is made (an upgrade comes through it): a start loads it only when needed.
  let holding = true
  server.withServer((http) => {
    if (holding) http.on('upgrade', hold)
  })
  return {
    config,
    server,
    firstReads,
    takeHeldUpgrades() {
      holding = false
      server.withServer((http) => http.off('upgrade', hold))
      return held.splice(0)
    },
    serve: (served) => settle.resolve(served),
    // A WebSocket waiting for the node is a request the node must answer.
    idle: (maxMs) => dispatcher.idle(maxMs, () => held.length > 0),
    async fail(error) {
      settle.reject(error)
      firstReads?.transport.close()
      for (const [, socket] of held) socket.destroy()
      await server.close()
    },
  }
}

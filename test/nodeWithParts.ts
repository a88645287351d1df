import { type DevnetOptions, ProviderRpcError, resolveConfig } from '../src/index.js'
import { createNodeWithParts } from '../src/node/node.js'
import { createDispatcher } from '../src/rpc/dispatch.js'
import { allMethods } from '../src/rpc/registry.js'
import { toRpcError } from '../src/rpc/toRpcError.js'

/**
 * A node created by the node module's own factory with its writable parts
 * (createNodeWithParts), and an EIP-1193 `request` over the same dispatcher a
 * Devnet uses: for the few tests of the parts themselves (the state
 * database, the pre-confirmed VM, a cheat with an arbitrary state change).
 * Everything else goes through createDevnet and JSON-RPC, as users do.
 */
export async function nodeWithParts(options: DevnetOptions = {}) {
  const config = await resolveConfig({ mining: 'manual', clock: 'virtual', quiet: true, ...options })
  const { node, parts } = await createNodeWithParts(config)
  const dispatcher = createDispatcher(node, allMethods, { debug: config.debug })
  const request = async (args: { method: string; params?: unknown }): Promise<any> => {
    try {
      return await dispatcher.call(args.method, args.params ?? [])
    } catch (error) {
      const e = toRpcError(error, { debug: config.debug, log: (x) => console.error('devnet: internal error:', x) })
      throw new ProviderRpcError(e.code, e.message, 'data' in e ? e.data : undefined)
    }
  }
  return {
    node,
    parts,
    request,
    accounts: node.accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
    chain: { id: Number(node.chainId) },
    token: { address: config.token.address },
    seal: () => node.seal(),
    preconfirm: () => node.preconfirm(),
    close: () => node.close(),
  }
}

export type NodeWithParts = Awaited<ReturnType<typeof nodeWithParts>>

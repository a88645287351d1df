import { bytesToHex } from 'viem/utils'
import type { PooledTx } from '../../node/pool.js'
import { ArgError, address, uint64 } from '../codecs.js'
import { type MethodDef, alias, defineMethod } from '../defineMethod.js'
import { formatTx, q } from '../format.js'
import { looseUint64 } from '../harnessCodecs.js'
import { maxMineCount } from './mining.js'

/**
 * evm_mine's one optional argument: a timestamp (Hardhat, Anvil), or an
 * object `{ timestamp?, blocks? }` (Anvil, ganache).
 */
/** The process's memory as devnet_status reports it (bytes). */
const memory = () => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage()
  return { rss, heapTotal, heapUsed, external, arrayBuffers }
}

const mineOptions = (value: unknown): { timestamp?: bigint; blocks?: bigint } => {
  if (typeof value !== 'object' || value === null) return { timestamp: typeof value === 'string' ? uint64(value) : looseUint64(value) }
  const { timestamp, blocks, ...rest } = value as Record<string, unknown>
  if (Object.keys(rest).length > 0) throw new ArgError(`unknown field ${Object.keys(rest)[0]}`)
  const out: { timestamp?: bigint; blocks?: bigint } = {}
  if (timestamp != null) out.timestamp = looseUint64(timestamp)
  if (blocks != null) {
    out.blocks = looseUint64(blocks)
    if (out.blocks > maxMineCount) throw new ArgError(`cannot mine ${out.blocks} blocks at once (at most ${maxMineCount})`)
  }
  return out
}

/**
 * Mining control and status: devnet_seal, devnet_preconfirm, devnet_status,
 * evm_mine (with an optional timestamp, as Hardhat and Anvil take it).
 */
export const devnetMethods: MethodDef[] = [
  defineMethod({
    method: 'devnet_seal',
    params: [],
    handler: async ({ node }) => {
      const block = await node.seal()
      return { number: q(block.number), hash: block.hash }
    },
  }),
  ...alias(
    defineMethod({
      method: 'evm_mine',
      params: [mineOptions],
      required: 0,
      // One write: the pinned timestamp re-times the pending block (pre-confirmed transactions included) and seals it.
      handler: async ({ node }, [options]) => {
        await node.mineAt(options ?? {})
        return '0x0'
      },
    }),
  ),
  defineMethod({
    method: 'devnet_preconfirm',
    params: [],
    handler: async ({ node }) => {
      const { snapshot, added } = await node.preconfirm()
      return { number: q(snapshot.number), index: snapshot.index, transactions: added }
    },
  }),
  // process.memoryUsage() in bytes, apart from devnet_status (which stays the same for the same chain): the JS heap
  // apart from buffers (external, arrayBuffers) tells a leak from the chain's growth in a long run (npm run soak).
  defineMethod({
    method: 'devnet_memory',
    params: [],
    handler: () => memory(),
  }),
  defineMethod({
    method: 'devnet_status',
    params: [],
    handler: ({ node }) => {
      const head = node.chain.head()
      const pending = node.pending()
      const mode = node.sealer.mode()
      return {
        head: { number: q(head.number), hash: head.hash, timestamp: q(head.block.header.timestamp) },
        pending: {
          number: q(pending.number),
          index: pending.index,
          parentHash: pending.parentHash,
          timestamp: q(pending.env.timestamp),
          transactionCount: pending.txs.length,
          stateRoot: bytesToHex(pending.root),
        },
        pool: node.pool.size(),
        mining: mode,
        clock: { kind: node.clock.kind, now: q(node.clock.now()) },
        token: { address: node.config.token.address, name: node.config.token.name, symbol: node.config.token.symbol, decimals: 6 },
        // On a fork: where it reads from, and what that cost so far (HTTP requests, JSON-RPC requests, retries).
        ...(node.fork
          ? {
              fork: {
                upstream: node.fork.upstream,
                chainId: q(node.fork.upstreamChainId),
                blockNumber: q(node.fork.blockNumber),
                blockHash: node.fork.blockHash,
                remoteCalls: { ...node.fork.remote.stats },
              },
            }
          : {}),
        // What long runs watch: installed polling filters and node event listeners (subscriptions of open sockets).
        resources: {
          filters: node.filters.size(),
          // What they hold between polls (removed logs, pending hashes; log and block filters keep a cursor).
          filterItems: node.filters.buffered(),
          listeners: (['newHead', 'preconf', 'pendingTx', 'removedBlocks', 'droppedPreconf'] as const).reduce(
            (sum, name) => sum + node.events.listenerCount(name),
            0,
          ),
        },
      }
    },
  }),
]

/** geth's txpool namespace: txpool_status, txpool_content, txpool_contentFrom, txpool_inspect; the split is the node's (src/node/txpool.ts). */
export const txpoolMethods: MethodDef[] = [
  defineMethod({
    method: 'txpool_status',
    params: [],
    handler: async ({ node }) => {
      const { pending, queued } = await node.txpool()
      return { pending: q(pending.length), queued: q(queued.length) }
    },
  }),
  defineMethod({
    method: 'txpool_content',
    params: [],
    handler: async ({ node }) => {
      const { pending, queued } = await node.txpool()
      return { pending: group(pending), queued: group(queued) }
    },
  }),
  defineMethod({
    method: 'txpool_contentFrom',
    params: [address],
    handler: async ({ node }, [from]) => {
      const { pending, queued } = await node.txpool()
      const pick = (list: typeof pending) => group(list.filter((p) => p.from.toLowerCase() === from))
      return { pending: pick(pending)[from] ?? {}, queued: pick(queued)[from] ?? {} }
    },
  }),
  defineMethod({
    method: 'txpool_inspect',
    params: [],
    handler: async ({ node }) => {
      const { pending, queued } = await node.txpool()
      const summary = (list: typeof pending) => {
        const out: Record<string, Record<string, string>> = {}
        for (const p of list) {
          const tx = p.tx
          const price = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
          ;(out[p.from] ??= {})[p.nonce.toString()] =
            `${tx.to ? tx.to.toString() : 'contract creation'}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`
        }
        return out
      }
      return { pending: summary(pending), queued: summary(queued) }
    },
  }),
]

type Entry = PooledTx

function group(list: Entry[]) {
  const out: Record<string, Record<string, unknown>> = {}
  for (const p of list)
    (out[p.from.toLowerCase()] ??= {})[p.nonce.toString()] = formatTx(p.tx, p.from, {
      blockHash: null,
      blockNumber: null,
      blockTimestamp: null,
      index: null,
      baseFee: undefined,
    })
  return out
}

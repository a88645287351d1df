import type { Hex } from 'viem'
import type { Common, MerkleStateManager } from '../evm/engine.js'
import type { CallRequest } from '../evm/execute.js'
import type { ChainReader, StoredBlock } from './chain.js'
import type { CallOverrides } from './calls.js'
import { InvalidInputError } from './errors.js'
import { type TracerSpec, pendingAsBlock, traceBlock, traceCall } from './trace.js'
import type { PreconfSnapshot } from './preconf.js'
import type { BlockId, View } from './views.js'
import type { VM } from '../evm/engine.js'

/** What the traces read: the views, the pending block and, for block replays, the shared trie database. */
export type TraceParts = {
  views: { resolve(id: BlockId): View; withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T> }
  pending(): PreconfSnapshot
  common: Common
  state: MerkleStateManager
  chain: ChainReader
  gasCap: bigint
}

/**
 * The debug_trace* methods as node operations: where the traced
 * transaction or block is (sealed, else pre-confirmed), and the replay
 * under the tracer (src/node/trace.ts).
 */
export function createTraces(parts: TraceParts) {
  const { views } = parts
  const replay = (block: StoredBlock, spec: TracerSpec, only?: number) => traceBlock(parts, block, spec, only)
  return {
    /** Traces `request` run on block `id`'s state (debug_traceCall). */
    traceCall: (request: CallRequest, id: BlockId, overrides: CallOverrides, spec: TracerSpec) =>
      traceCall({ common: parts.common, withVm: views.withVm }, views.resolve(id), request, { ...overrides, gasCap: parts.gasCap }, spec),
    /** Traces a sealed or pre-confirmed transaction, replaying its block up to it (debug_traceTransaction). */
    async traceTransaction(hash: Hex, spec: TracerSpec): Promise<unknown> {
      const at = parts.chain.txLocation(hash)
      if (at) return (await replay(at.block, spec, at.index))[0]!.result
      const snapshot = parts.pending()
      const index = snapshot.txs.findIndex((t) => t.hash === hash)
      if (index < 0) throw new InvalidInputError('transaction not found')
      return (await replay(pendingAsBlock(parts.common, snapshot), spec, index))[0]!.result
    },
    /** Traces every transaction of a sealed block, or of the pre-confirmed one (debug_traceBlockByNumber). */
    async traceBlockByNumber(id: BlockId | 'pending', spec: TracerSpec) {
      if (id === 'pending') return replay(pendingAsBlock(parts.common, parts.pending()), spec)
      const view = views.resolve(id)
      if (view.kind !== 'sealed') throw new InvalidInputError('header not found')
      return replay(view.block, spec)
    },
    /** Traces every transaction of the sealed block `hash` (debug_traceBlockByHash). */
    async traceBlockByHash(hash: Hex, spec: TracerSpec) {
      const block = parts.chain.blockByHash(hash)
      if (!block) throw new InvalidInputError(`block ${hash} not found`)
      return replay(block, spec)
    },
  }
}

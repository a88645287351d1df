import type { Common } from '../evm/engine.js'
import type { MerkleStateManager } from '../evm/engine.js'
import type { TypedTransaction } from '../evm/engine.js'
import { type AfterTxEvent, type RunTxResult, type VM, runBlock } from '../evm/engine.js'
import type { Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import { type CallTracerConfig, createCallTracer } from '../evm/engine.js'
import { type CallRequest, blockFromEnv } from '../evm/engine.js'
import { type StructLog, type StructLoggerConfig, createStructLogger } from '../evm/engine.js'
import { createVmAt } from '../evm/engine.js'
import { type CallOptions, runCall } from './call.js'
import type { ChainReader, StoredBlock } from './chain.js'
import type { PreconfSnapshot } from './preconf.js'
import { InvalidInputError } from './errors.js'
import type { View } from './views.js'

/** geth's struct-logger result of one transaction. */
export type TxTrace = {
  gas: number
  failed: boolean
  returnValue: Hex
  structLogs: StructLog[]
}

/** Which tracer runs: geth's default struct logger, or its native callTracer. */
export type TracerSpec =
  | { kind: 'struct'; config: StructLoggerConfig }
  | { kind: 'call'; config: CallTracerConfig }

/** A tracer over one VM: collects while attached, and answers for each transaction. */
type TxTracer = { attach(): void; detach(): void; finish(tx: TypedTransaction, result: RunTxResult): unknown }

function createTracer(vm: VM, spec: TracerSpec): TxTracer {
  if (spec.kind === 'call') return createCallTracer(vm, spec.config)
  const logger = createStructLogger(vm, spec.config)
  return {
    attach: logger.attach,
    detach: logger.detach,
    finish: (_tx, result): TxTrace => ({
      gas: Number(result.totalGasSpent),
      failed: result.execResult.exceptionError !== undefined,
      returnValue: bytesToHex(result.execResult.returnValue),
      structLogs: logger.take(),
    }),
  }
}

/** Thrown from a VM event to stop the replay once the traced transaction is done. */
class ReplayDone extends Error {}

/**
 * Replays a sealed block from its parent's state and traces its transactions,
 * as geth's debug_traceBlock* and debug_traceTransaction do: the block's own
 * header (so system calls, base fee, coinbase and BLOCKHASH are the block's),
 * every transaction before the traced ones applied in order. With `only`, the
 * replay stops after that transaction and only it is traced.
 *
 * The replay runs on a VM of its own over the shared trie database (nodes
 * are never pruned, so the parent's root is always readable); nothing it does
 * reaches the chain.
 *
 * @throws InvalidInputError for the genesis block (no parent state to replay from).
 */
export async function traceBlock(
  args: { common: Common; state: MerkleStateManager; chain: ChainReader },
  block: StoredBlock,
  spec: TracerSpec,
  only?: number | undefined,
): Promise<{ txHash: Hex; result: unknown }[]> {
  if (block.number === 0n) throw new InvalidInputError('genesis is not traceable')
  const parent = args.chain.blockByNumber(block.number - 1n)!
  const vm = await createVmAt(args.common, args.state, parent.stateRoot, args.chain)
  const tracer = createTracer(vm, spec)
  const traces: { txHash: Hex; result: unknown }[] = []
  let index = -1
  vm.events.on('beforeTx', () => {
    index++
    if (only !== undefined && index > only) throw new ReplayDone()
    if (only === undefined || index === only) tracer.attach()
  })
  vm.events.on('afterTx', (event: AfterTxEvent) => {
    if (only !== undefined && index !== only) return
    tracer.detach()
    traces.push({ txHash: block.txs[index]!.hash, result: tracer.finish(event.transaction, event) })
  })
  try {
    await runBlock(vm, {
      block: block.block,
      // the roots were checked when the block was sealed or imported; a replay only observes
      generate: true,
      skipBlockValidation: true,
      skipHeaderValidation: true,
      skipHardForkValidation: true,
      setHardfork: true,
    })
  } catch (error) {
    if (!(error instanceof ReplayDone)) throw error
  }
  return traces
}

/**
 * The pre-confirmed block as a block to replay: its env and transactions on
 * the head, so pre-confirmed transactions can be traced before they are
 * sealed (with the same outcome: sealing runs them no further).
 */
export function pendingAsBlock(common: Common, snapshot: PreconfSnapshot): StoredBlock {
  return {
    block: blockFromEnv(common, snapshot.env, snapshot.txs.map((t) => t.tx)),
    txs: [...snapshot.txs],
    number: snapshot.number,
    hash: `0x${'00'.repeat(32)}`,
    logOffsets: [],
    stateRoot: snapshot.root,
  }
}

/**
 * Traces a call as eth_call would run it at `view` (debug_traceCall): same
 * defaults, overrides and gas cap; nothing is committed.
 */
export async function traceCall(
  args: { common: Common; withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T> },
  view: View,
  request: CallRequest,
  options: CallOptions,
  spec: TracerSpec,
): Promise<unknown> {
  return args.withVm(view, async (vm) => {
    const tracer = createTracer(vm, spec)
    let traced: unknown
    const onAfterTx = (event: AfterTxEvent) => {
      traced = tracer.finish(event.transaction, event)
    }
    vm.events.on('afterTx', onAfterTx)
    tracer.attach()
    try {
      await runCall(args.common, vm, view, request, options)
    } finally {
      tracer.detach()
      vm.events.off('afterTx', onAfterTx)
    }
    return traced
  })
}

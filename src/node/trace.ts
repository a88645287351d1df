import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { type RunTxResult, runBlock } from '@ethereumjs/vm'
import { type Hex, bytesToHex } from 'viem'
import { type StructLog, type StructLoggerConfig, createStructLogger } from '../evm/structLogger.js'
import { createVmAt } from '../evm/vm.js'
import type { ChainReader, StoredBlock } from './chain.js'
import { InvalidInputError } from './errors.js'

/** geth's struct-logger result of one transaction. */
export type TxTrace = {
  gas: number
  failed: boolean
  returnValue: Hex
  structLogs: StructLog[]
}

/** Thrown from a VM event to stop the replay once the traced transaction is done. */
class ReplayDone extends Error {}

/**
 * Replays a sealed block from its parent's state and traces its transactions
 * with the struct logger, as geth's debug_traceBlock* and
 * debug_traceTransaction do: the block's own header (so system calls, base
 * fee, coinbase and BLOCKHASH are the block's), every transaction before the
 * traced ones applied in order. With `only`, the replay stops after that
 * transaction and only it is traced.
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
  config: StructLoggerConfig,
  only?: number | undefined,
): Promise<{ txHash: Hex; result: TxTrace }[]> {
  if (block.number === 0n) throw new InvalidInputError('genesis is not traceable')
  const parent = args.chain.blockByNumber(block.number - 1n)!
  const vm = await createVmAt(args.common, args.state, parent.stateRoot, args.chain)
  const logger = createStructLogger(vm, config)
  const traces: { txHash: Hex; result: TxTrace }[] = []
  let index = -1
  vm.events.on('beforeTx', (_tx: TypedTransaction) => {
    index++
    if (only !== undefined && index > only) throw new ReplayDone()
    if (only === undefined || index === only) logger.attach()
  })
  vm.events.on('afterTx', (result: RunTxResult & { transaction?: TypedTransaction }) => {
    if (only !== undefined && index !== only) return
    logger.detach()
    const exception = result.execResult.exceptionError
    traces.push({
      txHash: block.txs[index]!.hash,
      result: {
        gas: Number(result.totalGasSpent),
        failed: exception !== undefined,
        returnValue: bytesToHex(result.execResult.returnValue),
        structLogs: logger.take(),
      },
    })
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

import type { Block } from '../../evm/engine.js'
import type { Common } from '../../evm/engine.js'
import type { MerkleStateManager } from '../../evm/engine.js'
import { BlockBuilder, type RunTxResult, type VM, initBlockState, runTx } from '../../evm/engine.js'
import type { Hex } from 'viem'
import { hexToBytes, keccak256 } from 'viem/utils'
import type { DevnetConfig } from '../../config/schema.js'
import { blockSize, hexOf } from '../../evm/engine.js'
import { type BlockEnv, blockFromEnv, toEvmLogs } from '../../evm/engine.js'
import type { EvmLog, ExecutedTx } from '../../evm/types.js'
import { type BlockSource, blockchainOf, createVmAt } from '../../evm/engine.js'
import { revertReason } from '../call.js'
import type { ChainReader, StoredBlock } from '../chain.js'
import { SimulateError } from '../errors.js'
import { toExecutedTx } from '../preconf.js'
import type { View } from '../views.js'
import { type CallContext, prepareCall, vmError, withoutEoaCheck } from './calls.js'
import { type Precompiles, applyOverrides } from './overrides.js'
import { type SanitizedBlock, checkLimits, sanitizeChain } from './sanitize.js'
import { traceTransfers } from './transfers.js'
import { assemble, blobBaseFeeOf, withBlobBaseFee, wrapNonce } from './vmPatches.js'
import type { SimCallResult, SimLog, SimulatePayload, SimulatedBlock } from './types.js'

const zero32 = `0x${'00'.repeat(32)}` as Hex
const nonceWrapZone = (1n << 64n) - (1n << 53n)

export type SimulateOptions = {
  /** The request-wide gas budget (geth's --rpc.gascap); 0 means unlimited. */
  gasCap: bigint
  /** Default seconds between simulated blocks. */
  timestampStep: bigint
  /** Report real state roots (geth) or 32 zero bytes (Base's reth). */
  computeStateRoot: boolean
  /** geth's --rpc.evmtimeout: the whole request is abandoned past it (-32016). */
  timeoutMs: number
}

/**
 * The options a node's config gives: the RPC gas cap as the budget; on an
 * imported (geth) chain geth's defaults, 12 s steps and real state roots; on
 * the dev chain Base's, the block time rounded up to whole seconds (reth's
 * hint on Base) and zero roots.
 */
export function simulateOptions(config: DevnetConfig): SimulateOptions {
  const imported = config.genesis !== undefined
  return {
    gasCap: config.rpcGasCap,
    timestampStep: BigInt(config.simulate.timestampStep ?? (imported ? 12 : Math.max(1, Math.ceil(config.blockTime / 1000)))),
    computeStateRoot: config.simulate.computeStateRoot ?? imported,
    timeoutMs: 5_000,
  }
}

/** What the engine needs of the node. */
export type SimulateDeps = {
  common: Common
  chain: ChainReader
  /** The node's trie database, for a throwaway VM copy when roots are computed. */
  state: MerkleStateManager
  withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T>
}

/**
 * eth_simulateV1 on top of `view`: limits and chain sanitizing first, then
 * every block in turn, each a real block assembled by ethereumjs's
 * BlockBuilder, so later blocks see earlier ones (state, BLOCKHASH, parent
 * hash, base fee). Nothing is written to the node: the view's VM runs the
 * request inside one checkpoint that is reverted at the end.
 *
 * Computing state roots needs the trie flushed, which ethereumjs cannot undo
 * under an open checkpoint (the cache forgets what to restore), so that mode
 * runs on a throwaway VM copy at the view's root instead of the shared one.
 */
export async function simulate(deps: SimulateDeps, view: View, payload: SimulatePayload, options: SimulateOptions) {
  checkLimits(payload.blockStateCalls)
  const base = baseOf(deps.chain, view)
  const blocks = sanitizeChain(
    { number: base.block.header.number, timestamp: base.block.header.timestamp },
    payload.blockStateCalls,
    { step: options.timestampStep, firstTime: view.kind === 'pending' ? view.env.timestamp : undefined },
  )
  const run = (vm: VM) => runBlocks(deps, vm, base, blocks, payload, options)
  if (!options.computeStateRoot) return deps.withVm(view, run)
  const vm = await createVmAt(deps.common, deps.state, view.root, deps.chain)
  return run(vm)
}

/**
 * The block the simulation builds on. On `pending` that is the head (Base:
 * "base = canonical block"), but the state is the pre-confirmed one and the
 * first block defaults to the pending block's own timestamp.
 */
function baseOf(chain: ChainReader, view: View): StoredBlock {
  if (view.kind === 'sealed') return view.block
  return chain.blockByHash(view.snapshot.parentHash) ?? chain.head()
}

async function runBlocks(
  deps: SimulateDeps,
  vm: VM,
  base: StoredBlock,
  blocks: SanitizedBlock[],
  payload: SimulatePayload,
  options: SimulateOptions,
): Promise<SimulatedBlock[]> {
  // The VM's own Common: its hardfork follows each simulated block (a base before the merge gets pre-merge blocks).
  const common = vm.common
  const hardfork = common.hardfork()
  const evm = vm.evm as unknown as { blockchain: unknown }
  const state = vm.stateManager as MerkleStateManager
  const savedBlockchain = { vm: vm.blockchain, evm: evm.blockchain }
  // BLOCKHASH reads the chain below the base and the simulated blocks above it.
  const simulated = new Map<bigint, Block>()
  const source: BlockSource = {
    blockByNumber: (number) => {
      const block = simulated.get(number)
      return block ? { block } : deps.chain.blockByNumber(number)
    },
    remoteBlockHash: deps.chain.remoteBlockHash,
  }
  const blockchain = blockchainOf(source)
  ;(vm as unknown as { blockchain: unknown }).blockchain = blockchain
  evm.blockchain = blockchain
  const deadline = createDeadline(options.timeoutMs)
  const budget = { remaining: options.gasCap === 0n ? 1n << 64n : options.gasCap }

  await state.checkpoint()
  try {
    const results: SimulatedBlock[] = []
    let parent = base.block
    for (const sim of blocks) {
      deadline.check()
      common.setHardforkBy({ blockNumber: sim.blockOverrides.number, timestamp: sim.blockOverrides.time })
      const result = await runBlock({ common, vm, state, parent, sim, payload, options, budget, deadline })
      simulated.set(result.block.header.number, result.block)
      results.push(result)
      parent = result.block
    }
    return results
  } finally {
    await state.revert()
    // Put back, not deleted: deleting a property turns the EVM object into a dictionary, and every later call on
    // this view's VM (eth_call included) then read its fields by hash lookup.
    const evmWithPrecompiles = vm.evm as unknown as { getPrecompile: unknown }
    evmWithPrecompiles.getPrecompile = (Object.getPrototypeOf(vm.evm) as { getPrecompile: unknown }).getPrecompile
    common.setHardfork(hardfork)
    ;(vm as unknown as { blockchain: unknown }).blockchain = savedBlockchain.vm
    evm.blockchain = savedBlockchain.evm
  }
}

type BlockArgs = {
  common: Common
  vm: VM
  state: MerkleStateManager
  parent: Block
  sim: SanitizedBlock
  payload: SimulatePayload
  options: SimulateOptions
  budget: { remaining: bigint }
  deadline: ReturnType<typeof createDeadline>
}

/**
 * geth's --rpc.evmtimeout, read on this process's CPU time rather than the
 * wall clock: on a dev machine shared with builds and test runs, CPU time
 * bounds the work a request does without failing it because the machine is
 * busy. Reading it is a system call (tens of microseconds on a busy VM, a
 * tenth of a small request), so a request reads it only once it has run
 * 100 ms of wall time, counting those 100 ms as CPU time spent (the most a
 * single thread can have spent), and from then on every 16th check (a block
 * or a call); checks come far more often than once per 5 s of work.
 */
function createDeadline(timeoutMs: number) {
  const cpuMs = () => {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
  }
  const start = performance.now()
  let end: number | undefined
  let count = 0
  return {
    check() {
      if (++count % 16 !== 0) return
      if (end === undefined) {
        const elapsed = performance.now() - start
        if (elapsed >= 100) end = cpuMs() + timeoutMs - elapsed
        return
      }
      if (cpuMs() > end) throw new SimulateError(-32016, `execution aborted (timeout = ${timeoutMs / 1000}s)`)
    },
  }
}

/** Builds one simulated block: header as geth's makeHeaders/processBlock, overrides, system calls, calls, assembly. */
async function runBlock(args: BlockArgs): Promise<SimulatedBlock> {
  const { common, vm, state, parent, sim, payload, options } = args
  const o = sim.blockOverrides
  const ph = parent.header
  // Fee recipient and gas limit carry over from the previous simulated header, overrides included (geth makeHeaders).
  const parentHash = parent.hash()
  const env: BlockEnv = {
    number: o.number,
    timestamp: o.time,
    gasLimit: o.gasLimit ?? ph.gasLimit,
    coinbase: o.feeRecipient ?? (ph.coinbase.toString() as Hex),
    prevRandao: o.prevRandao ?? zero32,
    // Without validation the base fee is 0 unless overridden: geth avoids fee cap < base fee in eth_call-like runs.
    baseFeePerGas: common.isActivatedEIP(1559)
      ? (o.baseFeePerGas ?? (!payload.validation ? 0n : ph.baseFeePerGas === undefined ? common.param('initialBaseFee') : ph.calcNextBaseFee()))
      : undefined,
    excessBlobGas: common.isActivatedEIP(4844)
      ? ph.excessBlobGas === undefined ? 0n : ph.calcNextExcessBlobGas(common)
      : undefined,
    parentHash: hexOf(parentHash),
    parentBeaconBlockRoot: common.isActivatedEIP(4788) ? (o.beaconRoot ?? zero32) : undefined,
  }
  // The header's bytes from what is already bytes (the parent's hash and coinbase), not parsed back from env's hex.
  const headerData: Record<string, unknown> = {
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    coinbase: o.feeRecipient === undefined ? ph.coinbase.bytes.slice() : hexToBytes(o.feeRecipient),
    mixHash: o.prevRandao === undefined ? new Uint8Array(32) : hexToBytes(o.prevRandao),
    parentHash: parentHash.slice(),
    // geth carries the previous header's difficulty: 0 after the merge, the base's before it.
    difficulty: ph.difficulty,
    nonce: new Uint8Array(8),
    extraData: new Uint8Array(),
  }
  if (env.baseFeePerGas !== undefined) headerData.baseFeePerGas = env.baseFeePerGas
  if (env.excessBlobGas !== undefined) headerData.excessBlobGas = env.excessBlobGas
  if (env.parentBeaconBlockRoot !== undefined) headerData.parentBeaconBlockRoot = o.beaconRoot === undefined ? new Uint8Array(32) : hexToBytes(o.beaconRoot)
  // No withdrawals are left out rather than passed empty: the builder would build a trie (a database and a debug
  // logger) for the root of nothing; without them the header defaults to that same empty root and the block to [].
  const withdrawals = common.isActivatedEIP(4895) && o.withdrawals !== undefined && o.withdrawals.length > 0
    ? o.withdrawals.map((w) => ({ index: w.index, validatorIndex: w.validatorIndex, address: w.address, amount: w.amount }))
    : undefined

  // Each block starts from the fork's precompiles; this block's overrides may move or disable some. Only
  // execution sees the change: like geth (vm.ActivePrecompiles), the warm set stays the fork's own.
  const evm = vm.evm as unknown as { _precompiles: Precompiles; getPrecompile(address: unknown): unknown }
  const moved = sim.stateOverrides === undefined ? undefined : await applyOverrides(state, sim.stateOverrides, evm._precompiles)
  // Without a change the fork's own lookup (the prototype's) serves, also undoing an earlier block's.
  evm.getPrecompile = moved
    ? (address) => moved.get(typeof address === 'string' ? address.slice(2).padStart(40, '0').toLowerCase() : String(address).slice(2))
    : (Object.getPrototypeOf(evm) as typeof evm).getPrecompile
  // The overrides count as a finished transaction: their storage is every later call's "original" value (EIP-2200).
  state.originalStorageCache.clear()

  const builder = new BlockBuilder(vm, {
    parentBlock: parent,
    headerData,
    blockOpts: { putBlockIntoBlockchain: false, setHardfork: false, skipConsensusFormatValidation: true } as never,
    ...(withdrawals ? { withdrawals } : {}),
  })
  // The request's own checkpoint is the only one: the builder must neither open nor commit another (see preconf.ts).
  const internals = builder as unknown as {
    checkpointed: boolean
    gasUsed: bigint
    blobGasUsed: bigint
    transactions: unknown[]
    transactionResults: RunTxResult[]
  }
  internals.checkpointed = true
  await initBlockState(builder)

  const block = execBlockOf(common, env, o.blobBaseFee)
  const blobBaseFee = blobBaseFeeOf(block, o.blobBaseFee)
  let feelessBlock: Block | undefined
  const txs: ExecutedTx[] = []
  const calls: SimCallResult[] = []
  let gasUsed = 0n
  let blobGasUsed = 0n
  let logIndex = 0
  for (const call of sim.calls) {
    args.deadline.check()
    const ctx: CallContext = {
      common,
      state,
      validation: payload.validation,
      baseFee: env.baseFeePerGas,
      blobBaseFee,
      gasLimit: env.gasLimit,
      gasUsed,
      budget: args.budget.remaining,
    }
    const prepared = await prepareCall(call, ctx)
    const { tx, from, sender } = prepared
    // geth's NoBaseFee: a fee-less call without validation runs as if the base fee were 0.
    let execBlock = block
    if (prepared.feeless && env.baseFeePerGas !== undefined && env.baseFeePerGas > 0n) {
      feelessBlock ??= withBlobBaseFee(blockFromEnv(common, { ...env, baseFeePerGas: 0n }), blobBaseFee)
      execBlock = feelessBlock
    }
    const execute = () =>
      withoutEoaCheck(state, sender, prepared.senderHasCode, () =>
        runTx(vm, {
          tx,
          block: execBlock,
          skipNonce: true,
          skipBalance: false,
          skipBlockGasLimitValidation: true,
          skipHardForkValidation: true,
          blockGasUsed: gasUsed,
        }),
      )
    let result: RunTxResult
    let logs: EvmLog[]
    try {
      if (payload.traceTransfers) {
        const traced = await traceTransfers(vm.evm, execute, (r) => toEvmLogs(r.execResult.logs))
        result = traced.result
        logs = traced.logs
      } else {
        result = await execute()
        logs = toEvmLogs(result.execResult.logs)
      }
    } catch (error) {
      if (error instanceof SimulateError) throw error
      throw vmError(error, tx.gasLimit)
    }
    // Only a sender near 2^64-1 can pass it: each CREATE of the call adds one, and no call makes 2^53 of them.
    if (prepared.stateNonce >= nonceWrapZone) await wrapNonce(state, sender)
    state.originalStorageCache.clear()

    const spent = result.totalGasSpent
    args.budget.remaining = args.budget.remaining > spent ? args.budget.remaining - spent : 0n
    // Without traceTransfers the call's logs are the receipt's, already converted.
    const receiptLogs = payload.traceTransfers ? undefined : logs
    const executed = toExecutedTx(tx, hexOf(tx.hash()), from, result, gasUsed, execBlock.header.baseFeePerGas ?? 0n, receiptLogs)
    gasUsed += spent
    blobGasUsed += result.blobGasUsed ?? 0n
    internals.transactions.push(tx)
    // Only what sealing reads (bloom, receipt): the whole result would keep the call's interpreter state alive
    // (memory, stack, environment) until the request ends, 100 of them for a 100-call block.
    internals.transactionResults.push({ receipt: result.receipt, bloom: result.bloom } as RunTxResult)
    txs.push(executed)
    calls.push(callResult(result, tx, logs, () => logIndex++))
  }
  internals.gasUsed = gasUsed
  internals.blobGasUsed = blobGasUsed
  internals.checkpointed = false
  const sealed = await assemble(builder, internals, state, options.computeStateRoot)
  // One encoding of the header for its hash (what hash() computes) and the block's size.
  const encodedHeader = sealed.header.serialize()
  const keccak = common.customCrypto.keccak256 ?? ((data: Uint8Array) => keccak256(data, 'bytes'))
  return { block: sealed, hash: hexOf(keccak(encodedHeader)), size: blockSize(sealed, encodedHeader), txs, calls }
}

/** The last block each VM's Common ran calls in, with the key of what it was built from (execBlockOf). */
const execBlocks = new WeakMap<Common, { key: string; block: Block }>()

/**
 * The block a simulated block's calls run in (what the EVM reads: number, time, coinbase, gas limit, base fee,
 * prevRandao, blob gas), reused while a request repeats on the same view: building one validates and copies a
 * header, with its Common. runTx only reads it; the one change made to it (a blob base fee override, set by
 * withBlobBaseFee) is part of the key. Keyed per Common, whose hardfork it was built at, and that is in the key too.
 */
function execBlockOf(common: Common, env: BlockEnv, blobBaseFee: bigint | undefined): Block {
  const key = `${common.hardfork()}|${env.number}|${env.timestamp}|${env.gasLimit}|${env.coinbase}|${env.prevRandao}|${env.baseFeePerGas}|${env.excessBlobGas}|${env.parentHash}|${env.parentBeaconBlockRoot}|${blobBaseFee}`
  const last = execBlocks.get(common)
  if (last !== undefined && last.key === key) return last.block
  const block = blockFromEnv(common, env)
  execBlocks.set(common, { key, block })
  return block
}

/** The call result geth reports: status, return data, gas, logs (none when it failed), and the error. */
function callResult(result: RunTxResult, tx: { gasLimit: bigint; getIntrinsicGas(): bigint }, logs: EvmLog[], nextIndex: () => number): SimCallResult {
  const exception = result.execResult.exceptionError
  const returnData = hexOf(result.execResult.returnValue)
  // Gas before refunds (execution-apis #746): at least what was charged, which the EIP-7623 floor may have raised.
  const beforeRefund = tx.getIntrinsicGas() + result.execResult.executionGasUsed
  const maxUsedGas = beforeRefund > result.totalGasSpent ? beforeRefund : result.totalGasSpent
  // Objects written out rather than spread: a literal that spreads another takes V8's slow copy path, per call and log.
  if (exception === undefined) {
    const simLogs = logs.map((log): SimLog => ({ address: log.address, topics: log.topics, data: log.data, logIndex: nextIndex() }))
    return { returnData, gasUsed: result.totalGasSpent, maxUsedGas, status: 1, logs: simLogs, error: undefined }
  }
  // geth's ExecutionResult.Return() is empty for a failed call; revert data travels in the error only.
  const failed = (error: SimCallResult['error']): SimCallResult => ({ returnData: '0x', gasUsed: result.totalGasSpent, maxUsedGas, status: 0, logs: [], error })
  if (exception.error === 'revert') {
    const reason = revertReason(returnData)
    return failed({ code: 3, message: reason ? `execution reverted: ${reason}` : 'execution reverted', data: returnData })
  }
  return failed({ code: -32015, message: exception.error })
}

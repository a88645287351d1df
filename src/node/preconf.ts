import { Block, createBlock } from '../evm/engine.js'
import type { Common } from '../evm/engine.js'
import type { MerkleStateManager } from '../evm/engine.js'
import { TransactionType, type TypedTransaction } from '../evm/engine.js'
import { type Address as EthAddress, createAddressFromString, hexToBytes } from '../evm/engine.js'
import { BlockBuilder, BuildStatus, type RunTxResult, type VM, encodeReceipt, initBlockState, runTx } from '../evm/engine.js'
import type { Address, Hex } from 'viem'
import { bytesToHex, getContractAddress, keccak256 } from 'viem/utils'
import type { BlockEnv } from '../evm/execute.js'
import { toEvmLogs } from '../evm/engine.js'
import type { EvmLog, ExecutedBlock, ExecutedTx } from '../evm/types.js'
import { withIdleRequestQueues } from '../evm/engine.js'
import { createVmAt } from '../evm/engine.js'
import { deferFlushToRoot } from '../evm/engine.js'
import { batchFlush } from '../evm/engine.js'
import { patchActive } from '../evm/engine.js'
import type { ChainReader, StoredBlock } from './chain.js'
import type { PooledTx } from './pool.js'
import { orderedTrieRoot } from '../evm/engine.js'
import { sealBuiltBlock } from '../evm/engine.js'

/**
 * What `pending` answers from: one immutable pre-confirmation (a Base
 * "flashblock"). Readers hold a reference; a tick publishes a new object and
 * never changes an old one, so no read sees a half-applied tick.
 */
export type PreconfSnapshot = {
  /** Number of the block being built (head + 1). */
  number: bigint
  /** Flashblock index within the block: 0 at the start of the block, +1 per tick that added transactions. */
  index: number
  parentHash: Hex
  env: BlockEnv
  /** Every pre-confirmed transaction of the block so far, in order. */
  txs: readonly ExecutedTx[]
  /** State root after the last pre-confirmed transaction. */
  root: Uint8Array
  gasUsed: bigint
  /** Hashes added by the tick that published this snapshot. */
  added: readonly Hex[]
}

/** A transaction the layer could not run, with the reason. */
export type RejectedTx = { pooled: PooledTx; reason: string; retry: boolean }

export type Preconf = ReturnType<typeof createPreconf>

const feeCapOf = (tx: TypedTransaction) => ('maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice)

const effectiveGasPrice = (tx: TypedTransaction, baseFee: bigint) => {
  if ('maxFeePerGas' in tx) {
    const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee
    return baseFee + tip
  }
  return (tx as { gasPrice: bigint }).gasPrice
}

/** Turns one runTx result inside a block into the transaction's receipt data. */
export function toExecutedTx(
  tx: TypedTransaction,
  hash: Hex,
  from: Address,
  result: RunTxResult,
  previousCumulative: bigint,
  baseFee: bigint,
  /** The receipt's logs, when the caller has already converted them. */
  logs?: EvmLog[],
): ExecutedTx {
  const receipt = result.receipt as RunTxResult['receipt'] & {
    status?: 0 | 1
    blobGasUsed?: bigint
    blobGasPrice?: bigint
  }
  const cumulative = receipt.cumulativeBlockGasUsed
  return {
    tx,
    hash,
    from,
    status: receipt.status ?? 1,
    gasUsed: cumulative - previousCumulative,
    cumulativeGasUsed: cumulative,
    effectiveGasPrice: effectiveGasPrice(tx, baseFee),
    // geth reports the would-be address for every creation, failed ones too
    contractAddress:
      tx.to === undefined ? (getContractAddress({ from, nonce: tx.nonce }).toLowerCase() as Address) : null,
    logs: logs ?? toEvmLogs(receipt.logs),
    blobGasUsed: receipt.blobGasUsed,
    blobGasPrice: receipt.blobGasPrice,
    logsBloom: receipt.bitvector,
  }
}

/**
 * The block's transactions and receipts roots in one synchronous pass
 * (orderedTrieRoot, the same roots) instead of BlockBuilder's: it builds an
 * @ethereumjs/mpt trie per root at every seal (a database, a debug logger and
 * an async put per transaction), even for a block without transactions.
 */
function fastBlockRoots(builder: BlockBuilder, keccak: (data: Uint8Array) => Uint8Array) {
  if (!patchActive('block-roots')) return
  const b = builder as unknown as {
    transactions: TypedTransaction[]
    transactionResults: RunTxResult[]
    transactionsTrie(): Promise<Uint8Array>
    receiptTrie(): Promise<Uint8Array>
  }
  b.transactionsTrie = async () => orderedTrieRoot(b.transactions.map((tx) => tx.serialize()), keccak)
  b.receiptTrie = async () =>
    orderedTrieRoot(b.transactionResults.map((result, i) => encodeReceipt(result.receipt, b.transactions[i]!.type)), keccak)
}

/**
 * The pre-confirmed layer: one working VM on top of the head that runs pool
 * transactions tick by tick and publishes a snapshot after each tick.
 *
 * Design (ARCHITECTURE §3, option a): ethereumjs's BlockBuilder keeps one
 * journal checkpoint open for the whole block, and a state root cannot be
 * read while a checkpoint is open. We mark the builder as already
 * checkpointed so it never opens one: each transaction commits on its own,
 * every tick ends at a committed root that readers open copies of, and at
 * seal the same builder assembles the block (tries, bloom, requests, roots)
 * from the receipts it already has. The sealed block therefore contains
 * exactly the pre-confirmed transactions with identical receipts (I3), at
 * the cost of no re-execution.
 *
 * The working state writes into its tries only when a root is read (once per
 * tick, once per seal and block start: deferredFlush.ts), and then each
 * trie's changes in one batched update (batchedFlush.ts), not per
 * transaction and per key: the same nodes and roots, with the nodes shared by
 * a block's changes hashed once.
 *
 * The layer gets a ChainReader, never the chain (I5).
 */
export function createPreconf(args: {
  common: Common
  chain: ChainReader
  state: MerkleStateManager
  coinbase: Address
  extraData: Hex
  /** Header fields pinned by tests (gas limit, coinbase, next base fee), read at each block start. */
  overrides?: () => { gasLimit?: bigint | undefined; coinbase?: Address | undefined; nextBaseFee?: bigint | undefined }
}) {
  const { common, chain } = args
  const keccak = common.customCrypto.keccak256 ?? ((data: Uint8Array) => keccak256(data, 'bytes'))
  let vm: VM | undefined
  let builder: BlockBuilder
  let parent: StoredBlock
  let env: BlockEnv
  let executed: ExecutedTx[] = []
  let snapshot: PreconfSnapshot
  let gasUsed = 0n

  const asBuilder = (b: BlockBuilder) => b as unknown as { checkpointed: boolean }

  /** Starts an empty block on `head` with the given timestamp, reusing the working VM when it already sits on the head's state. */
  async function start(head: StoredBlock, timestamp: bigint, options: { reuseState: boolean }) {
    parent = head
    const parentBlock = head.block
    if (!vm) {
      vm = await createVmAt(common, args.state, head.stateRoot, chain)
      deferFlushToRoot(vm.stateManager as MerkleStateManager)
      batchFlush(vm.stateManager as MerkleStateManager)
    }
    else if (!options.reuseState) await vm.stateManager.setStateRoot(head.stateRoot, true)
    const pinned = args.overrides?.() ?? {}
    const coinbase = pinned.coinbase ?? args.coinbase
    const headerData: Record<string, unknown> = {
      number: parentBlock.header.number + 1n,
      timestamp,
      coinbase: hexToBytes(coinbase),
      gasLimit: pinned.gasLimit ?? parentBlock.header.gasLimit,
      extraData: hexToBytes(args.extraData),
      difficulty: 0n,
      nonce: new Uint8Array(8),
    }
    if (common.isActivatedEIP(4788)) headerData.parentBeaconBlockRoot = new Uint8Array(32)
    if (pinned.nextBaseFee !== undefined && common.isActivatedEIP(1559)) headerData.baseFeePerGas = pinned.nextBaseFee
    txBlock = undefined
    builder = new BlockBuilder(vm, {
      parentBlock,
      headerData,
      blockOpts: { putBlockIntoBlockchain: false, setHardfork: false, skipConsensusFormatValidation: true } as never,
      // No withdrawals (not an empty list): the header then gets the empty withdrawals root without a trie being built for it.
    })
    asBuilder(builder).checkpointed = true
    fastBlockRoots(builder, keccak)
    await initBlockState(builder)
    const hd = (builder as unknown as { headerData: Record<string, unknown> }).headerData
    env = {
      number: hd.number as bigint,
      timestamp,
      gasLimit: BigInt(hd.gasLimit as bigint),
      baseFeePerGas: hd.baseFeePerGas as bigint | undefined,
      coinbase,
      prevRandao: `0x${'00'.repeat(32)}`,
      excessBlobGas: hd.excessBlobGas as bigint | undefined,
      parentHash: head.hash,
      parentBeaconBlockRoot: common.isActivatedEIP(4788) ? `0x${'00'.repeat(32)}` : undefined,
    }
    executed = []
    gasUsed = 0n
    snapshot = Object.freeze({
      number: env.number,
      index: 0,
      parentHash: head.hash,
      env,
      txs: Object.freeze([]),
      root: await vm.stateManager.getStateRoot(),
      gasUsed: 0n,
      added: Object.freeze([]),
    })
  }

  /**
   * Runs `pending` transactions in order on the working state. Those the VM
   * refuses are returned with the reason; `retry` marks the ones that may run
   * later: they did not fit this block, or their fee cap is below its base
   * fee (or blob fee), or an earlier nonce of their sender could not run.
   */
  async function tick(pending: PooledTx[]): Promise<{ added: ExecutedTx[]; rejected: RejectedTx[] }> {
    const ran = await run(pending)
    await ran.publish()
    return { added: ran.added, rejected: ran.rejected }
  }

  /**
   * tick() in two steps: runs the transactions, and returns with `publish`,
   * which computes the state root (the trie flush) and publishes the new
   * snapshot. Until it is called, readers still get the snapshot before the
   * tick, so only a caller that holds them meanwhile (an auto seal after
   * its answer, node.settling) may put it off.
   */
  async function run(pending: PooledTx[]): Promise<{ added: ExecutedTx[]; rejected: RejectedTx[]; publish: () => Promise<void> }> {
    const added: ExecutedTx[] = []
    const rejected: RejectedTx[] = []
    // A sender whose transaction cannot run blocks its later nonces until the gap is filled.
    const blocked = new Set<Address>()
    for (const pooled of pending) {
      if (blocked.has(pooled.from)) {
        rejected.push({ pooled, reason: 'earlier nonce not executable', retry: true })
        continue
      }
      // A fee cap the base fee has risen above (blocks were full) waits for it to fall, as in geth's pool:
      // the transaction was valid when accepted, and dropping it would lose it and strand the sender's later nonces.
      if (env.baseFeePerGas !== undefined && feeCapOf(pooled.tx) < env.baseFeePerGas) {
        blocked.add(pooled.from)
        rejected.push({ pooled, reason: 'max fee per gas less than block base fee', retry: true })
        continue
      }
      try {
        const result = await addTransaction(pooled.tx)
        const entry = toExecutedTx(pooled.tx, pooled.hash, pooled.from, result, gasUsed, env.baseFeePerGas ?? 0n)
        gasUsed = entry.cumulativeGasUsed
        executed.push(entry)
        added.push(entry)
      } catch (error) {
        blocked.add(pooled.from)
        const reason = (error as Error).message.replace(/ -> .*$/s, '').replace(/\s*\(.*block.*\)$/s, '')
        rejected.push({
          pooled,
          reason,
          retry: /higher gas limit than the remaining gas in the block|blob gas limit|is less than block blobGasPrice/.test(reason),
        })
      }
    }
    const publish = async () => {
      if (added.length === 0) return
      snapshot = Object.freeze({
        number: env.number,
        index: snapshot.index + 1,
        parentHash: parent.hash,
        env,
        txs: Object.freeze([...executed]),
        root: await vm!.stateManager.getStateRoot(),
        gasUsed,
        added: Object.freeze(added.map((tx) => tx.hash)),
      })
    }
    return { added, rejected, publish }
  }

  /**
   * builder.addTransaction without its per-transaction block. Before each
   * transaction the builder creates a whole block (a validated header with
   * its own copy of the chain's Common, plus every transaction added so far,
   * each copied and checked) only to hand runTx the header fields, which are
   * the same for every transaction of the block except the gas used so far;
   * runTx takes that as `blockGasUsed`. So the block is made once per pending
   * block, and the builder's bookkeeping (what its addTransaction does after
   * runTx) is done here, so build() assembles the same block.
   *
   * Blob transactions (blob gas accounting, sidecars), EIP-8037 (two gas
   * dimensions) and EIP-7928 (access-list indexes) go through the builder.
   */
  let txBlock: Block | undefined
  async function addTransaction(tx: TypedTransaction): Promise<RunTxResult> {
    // allowNoBlobs: the pool keeps blob txs bare; their sidecars were verified on admission (evm/rawTx.ts)
    const options = { skipHardForkValidation: true, allowNoBlobs: true }
    if (tx.type === TransactionType.BlobEIP4844 || common.isActivatedEIP(7928) || common.isActivatedEIP(8037))
      return builder.addTransaction(tx, options)
    const b = builder as unknown as {
      headerData: Record<string, unknown>
      blockOpts: Record<string, unknown>
      blockStatus: { status: string }
      transactions: TypedTransaction[]
      transactionResults: RunTxResult[]
      gasUsed: bigint
      _minerValue: bigint
    }
    if (b.blockStatus.status !== BuildStatus.Pending) return builder.addTransaction(tx, options)
    // The builder's check and message (tick() retries a transaction that only did not fit this block).
    if (tx.gasLimit > BigInt(b.headerData.gasLimit as bigint) - b.gasUsed)
      throw new Error('tx has a higher gas limit than the remaining gas in the block')
    txBlock ??= createBlock({ header: { ...b.headerData, gasUsed: 0n } }, b.blockOpts)
    const result = await runTx(vm!, { tx, block: txBlock, skipHardForkValidation: true, blockGasUsed: b.gasUsed })
    b.transactions.push(tx)
    b.transactionResults.push(result)
    b.gasUsed += result.blockGasSpent
    b._minerValue += result.minerValue
    return result
  }

  /**
   * Starts the block on `head` at `timestamp` and runs `txs` (transactions
   * pre-confirmed before: a rebuild after a cheat, a snapshot revert) again
   * in their order, in one tick. Returns what the tick returns.
   */
  async function restart(head: StoredBlock, timestamp: bigint, txs: readonly ExecutedTx[]) {
    await start(head, timestamp, { reuseState: false })
    if (txs.length === 0) return { added: [] as ExecutedTx[], rejected: [] as RejectedTx[] }
    return tick(txs.map((e, seq) => ({ tx: e.tx, hash: e.hash, from: e.from, nonce: e.tx.nonce, seq })))
  }

  /**
   * Assembles the block from what the layer executed. The layer must be restarted on the new head afterwards.
   *
   * When the builder-seal patch can (src/evm/builderSeal.ts: proof of stake, no withdrawals, idle EIP-7002/7251
   * queues, no deposit log), the header is build()'s, made once, and the block holds the transactions the layer
   * ran: build() would call the request contracts and create the block through createBlock, which re-creates
   * every transaction from its fields (their hash, sender and serialization memos lost, so the chain hashed each
   * again). About a tenth of the seal of a one-transaction block (bench/seqTransfers.ts).
   */
  async function seal(): Promise<ExecutedBlock> {
    asBuilder(builder).checkpointed = false
    const b = builder as unknown as { transactions: TypedTransaction[]; transactionResults: RunTxResult[]; blockOpts: object }
    if (patchActive('block-roots') && !common.isActivatedEIP(7928) && !common.isActivatedEIP(8037)) {
      const txs = b.transactions
      const header = await sealBuiltBlock(builder, {
        transactionsTrie: orderedTrieRoot(txs.map((tx) => tx.serialize()), keccak),
        receiptTrie: orderedTrieRoot(b.transactionResults.map((result, i) => encodeReceipt(result.receipt, txs[i]!.type)), keccak),
        stateRoot: () => vm!.stateManager.getStateRoot(),
      })
      if (header !== undefined) {
        // build() would mark the builder done; the layer starts a new one on the new head.
        const block = new Block(header, [...txs], [], undefined, b.blockOpts)
        ;(builder as unknown as { blockStatus: unknown }).blockStatus = { status: BuildStatus.Build, block }
        return { block, txs: [...executed] }
      }
    }
    const { block } = await withIdleRequestQueues(vm!, () => builder.build())
    return { block: block as Block, txs: [...executed] }
  }

  return {
    start,
    restart,
    tick,
    run,
    seal,
    snapshot: () => snapshot,
    parent: () => parent,
    env: () => env,
    executed: () => executed,
    /** An account in the working state (pre-confirmed transactions included), undefined when it does not exist. */
    accountOf(address: EthAddress) {
      return vm!.stateManager.getAccount(address)
    },
    /** Sender nonce in the working state (pre-confirmed transactions included). */
    async nonceOf(address: Address) {
      const account = await vm!.stateManager.getAccount(createAddressFromString(address))
      return account?.nonce ?? 0n
    },
    async balanceOf(address: Address) {
      const account = await vm!.stateManager.getAccount(createAddressFromString(address))
      return account?.balance ?? 0n
    },
    async codeOf(address: Address) {
      return bytesToHex(await vm!.stateManager.getCode(createAddressFromString(address)))
    },
    vm: () => vm!,
  }
}

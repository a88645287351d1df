import type { Address, Hex } from 'viem'
import type { DevnetConfig } from '../config/schema.js'
import type { Common, MerkleStateManager, StateManagerInterface, TypedTransaction, VM } from '../evm/engine.js'
import type { CallRequest } from '../evm/execute.js'
import type { ExecutedTx } from '../evm/types.js'
import type { DevAccount } from './accounts.js'
import type { BuiltPayload, PayloadAttributes } from './buildPayload.js'
import type { Chain, ChainReader, StoredBlock } from './chain.js'
import type { CallMemo } from './callMemo.js'
import type { Clock } from './clock.js'
import type { BlockOverrides, createControls } from './controls.js'
import type { Events } from './events.js'
import type { FilterStore } from './filters.js'
import type { dumpFixtureToFile } from './fixture/file.js'
import type { Fixture, LoadableFixture } from './fixture/format.js'
import type { LoadOptions, loadFixture } from './fixture/load.js'
import type { Fork } from './fork/open.js'
import type { PooledTx, createPool } from './pool.js'
import type { PreconfSnapshot, Preconf } from './preconf.js'
import type { Queue } from './queue.js'
import type { ReorgTx } from './reorg.js'
import type { createSealer } from './sealer.js'
import type { createSenderLocks } from './senderLocks.js'
import type { SimulatePayload, SimulatedBlock } from './simulate/types.js'
import type { Snapshots } from './snapshots.js'
import type { TracerSpec } from './trace.js'
import type { BlockId, View } from './views.js'

/**
 * The node as the layers above it (rpc, server, the package entry) see it:
 * what it holds (readers: chain, views, pool, events) and what it does. Every
 * change is a node operation that runs through the node's one write queue;
 * RPC handlers decode, call one operation, encode. The writable parts behind
 * the operations are on {@link InternalNode}, for the node's own modules
 * (fixtures) and tests.
 */
export interface Node {
  readonly config: DevnetConfig
  /** Set when this chain forks a live one: its upstream, fork block and read cache. */
  readonly fork: Fork | undefined
  readonly common: Common
  readonly chainId: bigint
  readonly accounts: DevAccount[]
  readonly chain: ChainReader
  readonly events: Events
  readonly filters: FilterStore
  readonly clock: Clock
  readonly queue: Queue
  /** Impersonation, the reported time offset and pinned header fields (test-harness switches). */
  readonly controls: ReturnType<typeof createControls>
  /** evm_snapshot / evm_revert; `register` lets other components (filters) join snapshots. */
  readonly snapshots: Snapshots
  /** Transactions the node gave up on, with the reason (devnet_status). */
  readonly dropped: { hash: Hex; reason: string }[]
  readonly views: {
    resolve(id: BlockId): View
    reader(view: View): MerkleStateManager
    withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T>
    /** Results of eth_call without overrides, per view (src/node/callMemo.ts). */
    memo: CallMemo
    clear(): void
  }
  readonly pool: {
    get(hash: Hex): PooledTx | undefined
    all(): PooledTx[]
    size(): number
    nextNonce(from: Address, start: bigint): bigint
    /** The pooled transactions executable on top of the given state nonces, in the order a block takes them. */
    ready(stateNonce: (from: Address) => bigint): PooledTx[]
  }
  /** The pre-confirmed block now. */
  pending(): PreconfSnapshot
  readonly sealer: ReturnType<typeof createSealer>
  /** Per-sender locks for the sends the node fills and signs (src/node/senderLocks.ts). */
  readonly senderLocks: ReturnType<typeof createSenderLocks>

  /** Decodes a raw transaction with the chain's rules. */
  decodeRaw(raw: Uint8Array): TypedTransaction
  /** Admits a signed transaction; `sealed`, in auto mode, settles when its block is sealed. */
  enqueue(tx: TypedTransaction): Promise<{ hash: Hex; sealed: Promise<StoredBlock> | undefined }>
  /** Admits a signed transaction; in auto mode it is pre-confirmed and sealed before this returns. */
  submit(tx: TypedTransaction): Promise<Hex>
  /** Seals a block now (devnet_seal, evm_mine). */
  seal(): Promise<StoredBlock>
  /** Seals `count` blocks, `interval` seconds apart when given (anvil_mine, hardhat_mine). */
  mine(count: bigint, interval: bigint): Promise<void>
  /** Runs a pre-confirmation tick now (devnet_preconfirm). */
  preconfirm(): Promise<{ snapshot: PreconfSnapshot; added: Hex[] }>
  /** Runs `fn` as one write, in order with every other change. */
  write<T>(fn: () => Promise<T>): Promise<T>
  /** Restarts the pending block (after a time change) through the queue. */
  restartPending(): Promise<void>
  close(): Promise<void>
  /** Changes the head's state outside any transaction (cheats); `latest` and `pending` see it at once. */
  cheat(change: (state: StateManagerInterface) => Promise<void>): Promise<void>
  /** Rebuilds the pending block keeping the pre-confirmed transactions `keep` accepts. */
  rebuildPending(
    keep?: (tx: ExecutedTx) => boolean,
    retime?: bigint,
  ): Promise<{ before: PreconfSnapshot; after: PreconfSnapshot; added: ExecutedTx[]; requeued: Hex[] }>
  /** Removes the sealed blocks above `number`. */
  rewind(number: bigint): Promise<StoredBlock[]>
  /** Replaces the top `depth` blocks with `blocks` (anvil_reorg, devnet_reorg); the replaced blocks' transactions are dropped or requeued. */
  reorg(depth: number, blocks: ReorgTx[][], removedTxs: 'drop' | 'requeue'): Promise<{ removed: StoredBlock[]; added: StoredBlock[] }>
  /** Removes the top `depth` blocks (anvil_rollback). */
  rollback(depth: number): Promise<void>
  /** Drops pre-confirmed transactions (all when `hashes` is undefined; devnet_dropPreconfirmed). */
  dropPreconfirmed(hashes: readonly Hex[] | undefined): Promise<{ dropped: Hex[]; requeued: Hex[] }>
  /** Moves the clock forward (evm_increaseTime); resolves to the total offset moved so far, in seconds. */
  increaseTime(seconds: bigint): Promise<bigint>
  /** Sets the clock (anvil_setTime); resolves to the seconds it moved. */
  setTime(timestamp: bigint): Promise<bigint>
  /** Pins the next block's timestamp (evm_setNextBlockTimestamp). */
  setNextBlockTimestamp(timestamp: bigint): Promise<void>
  /** Sets or (undefined) removes the interval between block timestamps; resolves to whether one was set. */
  setBlockTimestampInterval(seconds: bigint | undefined): Promise<boolean>
  /** Seals `blocks` blocks, the first at `timestamp` when given (evm_mine). */
  mineAt(options: { timestamp?: bigint | undefined; blocks?: bigint | undefined }): Promise<void>
  /** Pins header fields of the blocks to come and rebuilds the pending block under them. */
  pinBlockFields(fields: Partial<BlockOverrides>): Promise<void>
  /** Removes the pooled or pre-confirmed transactions `drop` selects; resolves to their hashes. */
  dropTransactions(drop: (tx: { hash: Hex; from: string }) => boolean): Promise<Hex[]>
  /** Fills a request as a wallet would and signs it as `from` (a dev account, or Anvil's fake signature when impersonated). */
  fillAndSign(request: CallRequest & { from: Hex }, options?: { unsigned?: boolean }): Promise<TypedTransaction>
  /** Runs eth_simulateV1's blocks on top of `view`. */
  simulate(view: View, payload: SimulatePayload): Promise<SimulatedBlock[]>
  /** Builds (without adding it) the block a proposer would get on `parent` (testing_buildBlockV1). */
  buildPayload(parent: StoredBlock, attributes: PayloadAttributes, txs: TypedTransaction[], options: { extraData: Hex }): Promise<BuiltPayload>
  /** The chain as a fixture (devnet_dumpFixture); written to `file` (atomically) when given, which resolves to the file's summary. */
  dumpFixture(): Promise<Fixture>
  dumpFixtureToFile(file: string): Promise<Awaited<ReturnType<typeof dumpFixtureToFile>>>
  /** Replaces the chain by a fixture's (devnet_loadFixture); resolves to the new head. */
  loadFixture(fixture: LoadableFixture, options?: LoadOptions): Promise<Awaited<ReturnType<typeof loadFixture>>>
  /** Re-executes a sealed block under a tracer (debug_trace*); `only` traces one transaction. */
  traceBlock(block: StoredBlock, spec: TracerSpec, only?: number): Promise<{ txHash: Hex; result: unknown }[]>
}

/**
 * The node with its writable parts, unqueued: for the node's own modules
 * (fixtures dump and load the chain, pool and pre-confirmed block) and for
 * tests. src/rpc never sees it (test/architecture.test.ts).
 */
export interface InternalNode extends Node {
  /** The pinned next timestamp and the block interval (time control). */
  readonly time: { next: bigint | undefined; interval: bigint | undefined }
  /** Unqueued versions, for callers already inside `write`. */
  readonly internals: {
    chain: Chain
    pool: ReturnType<typeof createPool>
    preconf: Preconf
    state: MerkleStateManager
    seal(): Promise<StoredBlock>
    tick(): Promise<{ snapshot: PreconfSnapshot; added: Hex[] }>
    nextTimestamp(parent: StoredBlock): bigint
    cheat(change: (state: StateManagerInterface) => Promise<void>): Promise<void>
    rebuildPending: Node['rebuildPending']
    rewind(number: bigint): Promise<StoredBlock[]>
  }
}

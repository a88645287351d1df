import type { Address, Hex } from 'viem'
import type { DevnetConfig, MiningConfig } from '../config/schema.js'
import type { Common, MerkleStateManager, StateManagerInterface, TypedTransaction, VM } from '../evm/engine.js'
import type { CallRequest } from '../evm/execute.js'
import type { StateOverrides } from './call.js'
import type { AccessListEntry, CallOverrides } from './calls.js'
import type { DevAccount } from './accounts.js'
import type { BuiltPayload, PayloadAttributes } from './buildPayload.js'
import type { Chain, ChainReader, StoredBlock } from './chain.js'
import type { CallMemo } from './callMemo.js'
import type { Clock } from './clock.js'
import type { BlockOverrides } from './controls.js'
import type { Events } from './events.js'
import type { FeeHistory } from './feeHistory.js'
import type { FilterStore } from './filters.js'
import type { IndexedLog } from './logIndex.js'
import type { LogRequest } from './logs.js'
import type { Fixture, LoadableFixture } from './fixture/format.js'
import type { LoadOptions } from './fixture/load.js'
import type { Fork } from './fork/open.js'
import type { Pool, PooledTx } from './pool.js'
import type { PreconfSnapshot, Preconf } from './preconf.js'
import type { ReorgTx } from './reorg.js'
import type { SimulatePayload, SimulatedBlock } from './simulate/types.js'
import type { Snapshots } from './snapshots.js'
import type { stateProof } from './stateAccess.js'
import type { TracerSpec } from './trace.js'
import type { BlockId, View } from './views.js'
import type { TxInclusion } from './waitForTx.js'

/**
 * The node as the layers above it (rpc, server, the package entry) see it:
 * what it holds (readers: chain, views, pool, events) and what it does. Every
 * change is a node operation that runs through the node's one write queue;
 * RPC handlers decode, call one operation, encode. The writable parts behind
 * the operations (chain, pool, pre-confirmed layer, state, time controls)
 * live in createNode's closure: node.ts hands them to the node's own modules
 * (fixtures, reorgs, time control) and nothing here reaches them
 * (test/architecture.test.ts).
 */
export interface Node {
  readonly config: DevnetConfig
  /** Set when this chain forks a live one: its upstream, fork block and read cache. */
  readonly fork: Fork | undefined
  readonly common: Common
  readonly chainId: bigint
  readonly accounts: DevAccount[]
  readonly chain: ChainReader
  /** The node's events, to listen to (subscriptions, filters); only the node emits them. */
  readonly events: Pick<Events, 'on' | 'listenerCount'>
  readonly filters: FilterStore
  /** The node's clock (virtual or wall), read-only: time moves through the time operations. */
  readonly clock: Pick<Clock, 'kind' | 'now'>
  /** Whether eth_sendTransaction may send from `address` without its key (anvil_impersonateAccount). */
  readonly controls: { isImpersonated(address: Address): boolean }
  /** evm_snapshot / evm_revert / anvil_reset; `register` lets other components (filters) join snapshots. */
  readonly snapshots: Pick<Snapshots, 'take' | 'revert' | 'reset' | 'register'>
  /** Transactions the node gave up on, with the reason (devnet_status). */
  readonly dropped: readonly { hash: Hex; reason: string }[]
  readonly views: {
    resolve(id: BlockId): View
    reader(view: View): MerkleStateManager
    withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T>
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
  /** The mining mode now. */
  readonly sealer: { mode(): MiningConfig }
  /** Senders with a node-filled send in progress (src/node/senderLocks.ts). */
  sendsInFlight(): number

  /** Decodes a raw transaction with the chain's rules. */
  decodeRaw(raw: Uint8Array): TypedTransaction
  /**
   * Admits a signed transaction; `sealed`, in auto mode, settles once the
   * block that takes it has run its transactions (its seal may still be
   * finishing: `settling`).
   */
  enqueue(tx: TypedTransaction): Promise<{ hash: Hex; sealed: Promise<unknown> | undefined }>
  /**
   * Admits a signed transaction; in auto mode it is pre-confirmed and sealed
   * before this returns, and the pending block restarted on its block, unless
   * `answerFirst` (an RPC answer: then `settling` covers the rest).
   */
  submit(tx: TypedTransaction, options?: { answerFirst?: boolean }): Promise<Hex>
  /**
   * Set while an auto seal finishes (header, chain append, the next pending
   * block) after its senders were answered: the dispatcher holds each
   * request until it resolves.
   */
  settling(): Promise<void> | undefined
  /**
   * Fills, signs and admits a request as its sender, under the sender's lock
   * (eth_sendTransaction, eth_sendUnsignedTransaction); in auto mode resolves
   * once its block is sealed.
   */
  sendTransaction(request: CallRequest & { from: Hex }, options?: { unsigned?: boolean }): Promise<Hex>
  /** Admits a signed transaction and resolves with where it is once pre-confirmed or sealed; a TimeoutError after `timeoutMs` (eth_sendRawTransactionSync). */
  submitAndWait(tx: TypedTransaction, timeoutMs: number): Promise<TxInclusion>
  /** geth's split of the pool: runnable in order from the pending nonce (`pending`, pre-confirmed first) or behind a gap (`queued`). */
  txpool(): Promise<{ pending: PooledTx[]; queued: PooledTx[] }>
  /** Seals a block now (devnet_seal, evm_mine). */
  seal(): Promise<StoredBlock>
  /** Seals `count` blocks, `interval` seconds apart when given (anvil_mine, hardhat_mine). */
  mine(count: bigint, interval: bigint): Promise<void>
  /** Runs a pre-confirmation tick now (devnet_preconfirm). */
  preconfirm(): Promise<{ snapshot: PreconfSnapshot; added: Hex[] }>
  /** Switches automine on, or off (to manual, when it was on); evm_setAutomine. */
  setAutomine(enabled: boolean): Promise<void>
  /** Mines every `ms` milliseconds; 0 turns interval mining off (evm_setIntervalMining). */
  setIntervalMining(ms: bigint): Promise<void>
  close(): Promise<void>
  /** Sets an account's balance at the head (anvil_setBalance); `latest` and `pending` see it at once. */
  setBalance(address: Address, balance: bigint): Promise<void>
  /** Sets an account's code at the head (anvil_setCode). */
  setCode(address: Address, code: Hex): Promise<void>
  /** Sets an account's nonce at the head (anvil_setNonce). */
  setNonce(address: Address, nonce: bigint): Promise<void>
  /** Sets a storage word at the head (anvil_setStorageAt). */
  setStorageAt(address: Address, slot: Hex, value: Hex): Promise<void>
  /** Sets a holder's payment-token balance, moving the total supply by the difference (devnet_setTokenBalance). */
  setTokenBalance(holder: Address, amount: bigint): Promise<void>
  /** Pauses or unpauses the payment token (devnet_setTokenPaused). */
  setTokenPaused(paused: boolean): Promise<void>
  /** Blacklists or clears an account on the payment token (devnet_setTokenBlacklisted). */
  setTokenBlacklisted(account: Address, blacklisted: boolean): Promise<void>
  /** Lets eth_sendTransaction send from `address` without its key, or stops it (anvil_impersonateAccount). */
  impersonate(address: Address, enabled: boolean): Promise<void>
  /** Lets eth_sendTransaction send from any address (anvil_autoImpersonateAccount). */
  autoImpersonate(enabled: boolean): Promise<void>
  /** Turns the node's log lines on or off (anvil_setLoggingEnabled). */
  setLogging(enabled: boolean): void
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
  /** Runs eth_simulateV1's blocks on top of block `id`. */
  simulate(id: BlockId, payload: SimulatePayload): Promise<SimulatedBlock[]>
  /**
   * Builds (without adding it) the block a proposer would get on the sealed
   * block `parentHash` (testing_buildBlockV1): from `txs`, or when undefined
   * from the pre-confirmed and ready pooled transactions (src/node/txpool.ts).
   */
  buildPayload(
    parentHash: Hex,
    attributes: PayloadAttributes,
    txs: TypedTransaction[] | undefined,
    options: { extraData: Hex },
  ): Promise<BuiltPayload>
  /** The chain as a fixture object (devnet_dumpFixture). */
  dumpFixture(): Promise<Fixture>
  /** The chain as the text of a fixture file (version 2). */
  dumpFixtureText(): Promise<string>
  /** Writes the chain as a fixture file to `file`, atomically; resolves to the file's summary. */
  dumpFixtureToFile(file: string): Promise<{ path: string; bytes: number }>
  /** Replaces the chain by a fixture's (devnet_loadFixture); resolves to the new head. */
  loadFixture(fixture: LoadableFixture, options?: LoadOptions): Promise<StoredBlock>
  /** The full state check of `fixture`, already loaded into this node (devnet fixture load): every node rehashed, every state walked. */
  verifyFixtureState(fixture: LoadableFixture): void
  /** Traces `request` run on block `id`'s state (debug_traceCall). */
  traceCall(request: CallRequest, id: BlockId, overrides: CallOverrides, spec: TracerSpec): Promise<unknown>
  /** Traces a sealed or pre-confirmed transaction (debug_traceTransaction). */
  traceTransaction(hash: Hex, spec: TracerSpec): Promise<unknown>
  /** Traces every transaction of a sealed block, or of the pre-confirmed one (debug_traceBlockByNumber). */
  traceBlockByNumber(id: BlockId | 'pending', spec: TracerSpec): Promise<{ txHash: Hex; result: unknown }[]>
  /** Traces every transaction of a sealed block (debug_traceBlockByHash). */
  traceBlockByHash(hash: Hex, spec: TracerSpec): Promise<{ txHash: Hex; result: unknown }[]>

  /** Runs a call on block `id`'s state; resolves with its return data, throws on a revert or VM error (eth_call). */
  call(request: CallRequest, id: BlockId, overrides?: CallOverrides): Promise<Hex>
  /** geth's gas estimate (eth_estimateGas). */
  estimateGas(request: CallRequest, id: BlockId, overrides?: CallOverrides): Promise<bigint>
  /** geth's access list search (eth_createAccessList). */
  createAccessList(
    request: CallRequest,
    id: BlockId,
    stateOverrides: StateOverrides | undefined,
  ): Promise<{ accessList: AccessListEntry[]; gasUsed: bigint; error?: string | undefined }>
  /** eth_getLogs over the sealed chain and, for a range ending at `pending`, the pre-confirmed block (src/node/logs.ts). */
  getLogs(filter: LogRequest): IndexedLog[]
  /** Installs a polling log filter (eth_newFilter); resolves its id. */
  newLogFilter(filter: LogRequest): Hex
  /** Every log the log filter `id` matches now (eth_getFilterLogs). */
  filterLogs(id: Hex): IndexedLog[]
  /** geth's fee history over at most 1024 blocks ending at `newest` (eth_feeHistory). */
  feeHistory(count: bigint, newest: BlockId, percentiles: readonly number[]): FeeHistory
  getBalance(address: Address, id: BlockId): Promise<bigint>
  /** The nonce; on `pending` past the sender's pooled transactions too. */
  getTransactionCount(address: Address, id: BlockId): Promise<bigint>
  getCode(address: Address, id: BlockId): Promise<Hex>
  getStorageAt(address: Address, slot: Hex, id: BlockId): Promise<Hex>
  /** Each address's slots, in request order, from one state (eth_getStorageValues). */
  getStorageValues(request: readonly { address: Address; slots: readonly Hex[] }[], id: BlockId): Promise<Hex[][]>
  /** EIP-1186 proofs of the account and `keys` (eth_getProof). */
  getProof(address: Address, keys: readonly Hex[], id: BlockId): Promise<StateProof>
}

/** eth_getProof's proofs (src/node/stateAccess.ts). */
export type StateProof = Awaited<ReturnType<typeof stateProof>>

/**
 * The pinned next timestamp and the interval between block timestamps
 * (evm_setNextBlockTimestamp, anvil_setBlockTimestampInterval): read by the
 * sealer, saved by snapshots and fixtures.
 */
export type TimeControls = { next: bigint | undefined; interval: bigint | undefined }

/**
 * The node's writable parts, unqueued. createNode keeps them in its closure
 * and passes the ones each module needs (fixtures, reorgs, time control,
 * snapshots); no Node object reaches them. Tests of the parts themselves
 * create a node with `createNodeWithParts` (src/node/node.ts); the package
 * entry points never do (test/architecture.test.ts).
 */
export type NodeParts = {
  chain: Chain
  pool: Pool
  preconf: Preconf
  state: MerkleStateManager
  clock: Clock
  time: TimeControls
  events: Events
  /** The views' caches: emptied on a fixture load; the eth_call memo (callMemo.ts) is read by its tests. */
  views: { clear(): void; memo: CallMemo }
  snapshots: Snapshots
  /** Runs `fn` as one write, in order with every other change (the fixture swap, a dump's capture). */
  write<T>(fn: () => Promise<T>): Promise<T>
  /** Changes the head's state outside any transaction, through the queue; `latest` and `pending` see it at once. */
  cheat(change: (state: StateManagerInterface) => Promise<void>): Promise<void>
  /** Removes the sealed blocks above `number`, through the queue. */
  rewind(number: bigint): Promise<StoredBlock[]>
}

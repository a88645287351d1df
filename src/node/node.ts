import type { Block } from '../evm/engine.js'
import type { Common, StateManagerInterface } from '../evm/engine.js'
import type { MerkleStateManager } from '../evm/engine.js'
import type { TypedTransaction } from '../evm/engine.js'
import { createAddressFromString } from '../evm/engine.js'
import type { Address, Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import { checksumAddress } from '../evm/engine.js'
import type { DevnetConfig } from '../config/schema.js'
import { createDevCommon } from '../evm/engine.js'
import { createDevGenesis } from '../evm/engine.js'
import { keccakReady } from '../evm/engine.js'
import { decodeRawTx } from '../evm/engine.js'
import { maxTxGas } from './call.js'
import type { buildPaymentContractsGenesis } from '../evm/paymentContracts.js'
import { cachedPaymentContractsGenesis } from '../evm/engine.js'
import { systemContracts } from '../evm/engine.js'
import type { buildTokenGenesis } from '../evm/token.js'
import { cachedTokenGenesis } from '../evm/engine.js'
import type { ExecutedBlock, ExecutedTx } from '../evm/types.js'
import { createStateManager } from '../evm/engine.js'
import { type DevAccount, deriveAccounts } from './accounts.js'
import { type Chain, type StoredBlock, createChain, readerOf } from './chain.js'
import { fillAndSignAs } from './fillAndSign.js'
import type { Node, NodeParts } from './types.js'
import { dumpFixture, dumpFixtureBytes, dumpFixtureText } from './fixture/dump.js'
import { writeFixtureFile } from './fixture/file.js'
import type { LoadableFixture } from './fixture/format.js'
import { type LoadOptions, loadFixture, verifyLoadedState } from './fixture/load.js'
import type { CallRequest } from '../evm/execute.js'
import {
  type ControlParts,
  dropTransactions,
  increaseTime,
  mineAt,
  pinBlockFields,
  setBlockTimestampInterval,
  setNextBlockTimestamp,
  setTime,
} from './timeControl.js'
import { type ReorgParts, type ReorgTx, dropPreconfirmed, replaceBlocks, rollback } from './reorg.js'
import { type Clock, createVirtualClock, createWallClock } from './clock.js'
import { createAutoSeal } from './autoSeal.js'
import { createCheats } from './cheats.js'
import { type BlockOverrides, createControls } from './controls.js'
import {
  FeeCapTooLowError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  InvalidInputError,
  NonceTooLowError,
  TxRejectedError,
} from './errors.js'
import { createEvents } from './events.js'
import type { Fork } from './fork/open.js'
import { type SavedFilters, createFilterStore } from './filters.js'
import { createPool } from './pool.js'
import { createPreconf } from './preconf.js'
import { createQueue } from './queue.js'
import { createMiningControl } from './miningControl.js'
import { readyOn, splitPool } from './txpool.js'
import { waitForInclusion } from './waitForTx.js'
import { createSealer } from './sealer.js'
import { createSenderLocks } from './senderLocks.js'
import { createSnapshots } from './snapshots.js'
import { type BlockId, createViews } from './views.js'
import { type PayloadAttributes, buildPayload } from './buildPayload.js'
import { simulate, simulateOptions } from './simulate/engine.js'
import type { SimulatePayload } from './simulate/types.js'
import { createTraces } from './traceOps.js'
import { createCalls } from './calls.js'
import { feeHistory } from './feeHistory.js'
import { type LogRequest, filterLogs, getLogs, newLogFilter } from './logs.js'
import { createStateReads } from './stateReads.js'

/** Asks a fork's upstream for what `tx` will read (fork/prefetch.ts); a transaction without a valid signature is left to admission. */
function prefetchOnFork(fork: Fork, tx: TypedTransaction) {
  let from: ReturnType<TypedTransaction['getSenderAddress']>
  try {
    from = tx.getSenderAddress()
  } catch {
    return
  }
  fork.cache.prefetch(from, tx.to, tx.data)
}

/** A chain imported from geth-format files, ready to continue from its head. */
export type ImportedChain = {
  common: Common
  state: MerkleStateManager
  genesisBlock: Block
  blocks: ExecutedBlock[]
  safe?: bigint | undefined
  finalized?: bigint | undefined
  /** The root reads at the first block use, when it is not the header's (a fork's local state). */
  stateRoot?: Uint8Array | undefined
  /** A fork's hashes of the blocks below its first block (BLOCKHASH). */
  remoteBlockHash?: ((number: bigint) => Promise<Uint8Array>) | undefined
}


const tokenGenesisMemo = new Map<string, ReturnType<typeof buildTokenGenesis>>()

/** Builds (once per distinct config in this process) the token's code and storage for genesis. */
function tokenGenesis(common: Common, config: DevnetConfig, accounts: DevAccount[]) {
  const admin = config.token.admin ?? accounts[0]!.address
  const key = JSON.stringify([config.chainId, config.hardfork, config.token, accounts.map((a) => a.address)], (_, v) =>
    typeof v === 'bigint' ? v.toString() : v,
  )
  let found = tokenGenesisMemo.get(key)
  if (!found) {
    found = cachedTokenGenesis(common, {
      address: checksumAddress(config.token.address),
      name: config.token.name,
      symbol: config.token.symbol,
      owner: admin,
      masterMinter: admin,
      pauser: admin,
      blacklister: admin,
      holders: accounts.map((a) => ({ address: a.address, units: config.token.balance })),
    })
    tokenGenesisMemo.set(key, found)
    found.catch(() => tokenGenesisMemo.delete(key))
  }
  return found
}

const paymentContractsMemo = new Map<string, ReturnType<typeof buildPaymentContractsGenesis>>()

/**
 * Builds (once per chain and account list in this process) the permit
 * checkout, spend-permission manager, smart-account factory and one smart
 * account per dev account for genesis.
 */
function paymentContractsGenesis(common: Common, config: DevnetConfig, accounts: DevAccount[]) {
  const owners = accounts.map((a) => a.address)
  const key = JSON.stringify([config.chainId.toString(), config.hardfork, owners])
  let found = paymentContractsMemo.get(key)
  if (!found) {
    found = cachedPaymentContractsGenesis(common, { owners })
    paymentContractsMemo.set(key, found)
    found.catch(() => paymentContractsMemo.delete(key))
  }
  return found
}

/**
 * Creates one node: chain, pool, pre-confirmed layer, sealer, all behind one
 * write queue. Nothing here is shared between nodes, so many can run in one
 * process.
 */
export async function createNode(config: DevnetConfig, options: NodeOptions = {}): Promise<Node> {
  return (await createNodeWithParts(config, options)).node
}

/** Where a node's chain comes from besides the dev genesis: a geth import, or a fork of a live chain. */
export type NodeOptions = { imported?: ImportedChain | undefined; fork?: Fork | undefined }

/**
 * createNode, also returning the node's writable parts (unqueued): for the
 * tests of those parts only. Nothing under src/ but this file calls it
 * (test/architecture.test.ts), so no Node handed out reaches them.
 */
export async function createNodeWithParts(config: DevnetConfig, options: NodeOptions = {}): Promise<{ node: Node; parts: NodeParts }> {
  const { imported, fork } = options
  // Hashing switches to the WebAssembly keccak once it is compiled (src/evm/keccak.ts).
  await keccakReady
  const common = imported?.common ?? createDevCommon(config.chainId, config.hardfork)
  const accounts = deriveAccounts(config.mnemonic, config.accounts)
  let state: MerkleStateManager
  let chain: Chain
  if (imported) {
    state = imported.state
    chain = createChain(imported.genesisBlock, { remoteBlockHash: imported.remoteBlockHash })
    if (imported.stateRoot) chain.replaceHeadState(imported.stateRoot)
    for (const block of imported.blocks) chain.append(block)
    if (imported.safe !== undefined || imported.finalized !== undefined)
      chain.setForkchoice(imported.safe ?? chain.height(), imported.finalized ?? chain.height())
  } else {
    state = createStateManager(common)
    const [token, paymentContracts] = await Promise.all([
      tokenGenesis(common, config, accounts),
      paymentContractsGenesis(common, config, accounts),
    ])
    const genesis = await createDevGenesis(common, state, {
      timestamp: config.genesisTimestamp,
      gasLimit: config.gasLimit,
      baseFee: config.baseFee,
      extraData: config.extraData,
      alloc: [
        ...accounts.map((a) => ({ address: a.address, balance: config.balance })),
        ...systemContracts.map((c) => ({ address: c.address, code: c.code, balance: 0n })),
        { address: token.address, code: token.code, storage: token.storage, nonce: 1n },
        ...paymentContracts,
      ],
    })
    chain = createChain(genesis)
  }

  const headTimestamp = chain.head().block.header.timestamp
  const clock: Clock =
    config.clock === 'virtual'
      ? createVirtualClock(headTimestamp > config.genesisTimestamp || imported ? headTimestamp : config.genesisTimestamp)
      : createWallClock()
  const queue = createQueue()
  const events = createEvents()
  const pool = createPool()
  const coinbase = '0x0000000000000000000000000000000000000000' as Address
  const controls = createControls()
  const preconf = createPreconf({ common, chain, state, coinbase, extraData: config.extraData, overrides: () => controls.block })
  const views = createViews({ common, state, chain, pending: () => preconf.snapshot() })

  /** Time controls (evm_setNextBlockTimestamp, anvil_setBlockTimestampInterval). */
  const time = { next: undefined as bigint | undefined, interval: undefined as bigint | undefined }

  /** The timestamp of the block to build on `parent`. */
  const nextTimestamp = (parent: StoredBlock) => {
    const p = parent.block.header.timestamp
    if (time.next !== undefined) return time.next
    if (time.interval !== undefined) return p + time.interval
    const now = clock.now()
    return now > p ? now : p + 1n
  }

  await preconf.start(chain.head(), nextTimestamp(chain.head()), { reuseState: false })

  const dropped: { hash: Hex; reason: string }[] = []
  const log = (message: string) => {
    if (controls.logging ?? !config.quiet) console.error(`devnet: ${message}`)
  }

  /**
   * Restarts an empty pending block whose timestamp has fallen behind the
   * clock (wall clock, nothing sealed for a while), so `pending` calls see the
   * present. A layer holding pre-confirmed transactions keeps its timestamp:
   * those were promised under it.
   */
  async function refreshIfStale() {
    if (preconf.executed().length > 0) return
    const head = chain.head()
    const timestamp = nextTimestamp(head)
    if (timestamp !== preconf.env().timestamp) await preconf.start(head, timestamp, { reuseState: false })
  }

  /** One pre-confirmation tick: runs the ready pool transactions on the pending state. */
  async function tick() {
    const publish = await runTick()
    return publish()
  }

  /**
   * A tick's execution: runs the ready pool transactions on the pending
   * state, and returns what publishes the result (the new snapshot with its
   * root, the pool and drops updated, `preconf`): at once in a tick, after
   * the answers in an auto seal (sealAnswerFirst). The pool keeps the
   * transactions until the snapshot that holds them is published.
   */
  async function runTick() {
    await refreshIfStale()
    const senders = pool.senders()
    const nonces = new Map<Address, bigint>()
    for (const sender of senders) nonces.set(sender, await preconf.nonceOf(sender))
    for (const stale of pool.stale((a) => nonces.get(a)!)) {
      pool.remove(stale.hash)
      dropped.push({ hash: stale.hash, reason: 'nonce too low' })
      log(`dropped ${stale.hash}: nonce too low`)
    }
    const ready = pool.ready((a) => nonces.get(a)!)
    if (ready.length === 0) return async () => ({ snapshot: preconf.snapshot(), added: [] as Hex[] })
    const ran = await preconf.run(ready)
    return async () => {
      await ran.publish()
      const { added, rejected } = ran
      for (const tx of added) pool.remove(tx.hash)
      for (const r of rejected) {
        if (r.retry) continue
        pool.remove(r.pooled.hash)
        dropped.push({ hash: r.pooled.hash, reason: r.reason })
        log(`dropped ${r.pooled.hash}: ${r.reason}`)
      }
      const snapshot = preconf.snapshot()
      if (added.length > 0) events.emit('preconf', snapshot)
      return { snapshot, added: added.map((tx) => tx.hash) }
    }
  }

  /** Seals the pending block: ready pool transactions get one last tick, then the layer becomes block N+1. */
  async function seal(): Promise<StoredBlock> {
    await tick()
    return sealTicked()
  }

  /**
   * The rest of a seal once its last tick ran (the block's transactions are
   * fixed): the layer becomes block N+1 on the chain, and the pending block
   * starts on it (system writes, its root) before `newHead` goes out.
   */
  async function sealTicked(): Promise<StoredBlock> {
    const executed = await preconf.seal()
    const stored = chain.append(executed)
    clock.sealed(stored.block.header.timestamp)
    time.next = undefined
    controls.block.nextBaseFee = undefined
    await preconf.start(stored, nextTimestamp(stored), { reuseState: true })
    events.emit('newHead', stored)
    return stored
  }

  /**
   * Set while an auto seal finishes after its senders were answered (see
   * sealAnswerFirst): the dispatcher holds every request until it resolves,
   * so none sees the node between the block's execution and its seal.
   */
  let settling: Promise<void> | undefined

  /**
   * Seals `count` blocks (anvil_mine, hardhat_mine). With an interval, each
   * block comes `interval` seconds after the later of the clock and its
   * parent (the first honours evm_setNextBlockTimestamp), so consecutive
   * blocks are exactly `interval` apart even once the head has run ahead of
   * the wall clock, as on Hardhat; the clock moves `interval` per block too,
   * as on Anvil, so the gap between chain and clock stays what it was.
   */
  async function mine(count: bigint, interval: bigint) {
    for (let i = 0n; i < count; i++) {
      if (interval > 0n) {
        const parent = chain.head().block.header.timestamp
        const now = clock.now()
        const timestamp = time.next ?? (now > parent ? now : parent) + interval
        clock.increase(interval)
        controls.timeOffset += interval
        time.next = timestamp
        // Pre-confirmed transactions run again under the time of the block they will be sealed in.
        await rebuildPending(undefined, timestamp)
      }
      await seal()
    }
  }

  /**
   * Starts the pending block again on the (possibly new) head and re-runs the
   * pre-confirmed transactions that `keep` accepts, in their order. The
   * block keeps its timestamp when it stays on the same parent, unless
   * `timestamp` moves it (a time cheat re-times the pending block). Transactions
   * that no longer run go back to the pool, so nothing accepted is lost; the
   * next tick retries or drops them with the reason.
   */
  async function rebuildPending(keep: (tx: ExecutedTx) => boolean = () => true, retime?: bigint) {
    const before = preconf.snapshot()
    const head = chain.head()
    const timestamp = retime ?? (before.parentHash === head.hash ? before.env.timestamp : nextTimestamp(head))
    const { added, rejected } = await preconf.restart(head, timestamp, preconf.executed().filter(keep))
    pool.readmit(rejected.map((r) => r.pooled))
    return { before, after: preconf.snapshot(), added, requeued: rejected.map((r) => r.pooled.hash) }
  }

  /**
   * Applies a change to the head's state outside any transaction
   * (anvil_setBalance, the token cheats): `latest` sees it at once, as on
   * Anvil, and the pre-confirmed transactions run again on top of it.
   */
  async function cheat(change: (state: StateManagerInterface) => Promise<void>) {
    const state = preconf.vm().stateManager
    await state.setStateRoot(chain.head().stateRoot, true)
    await state.checkpoint()
    try {
      await change(state)
      await state.commit()
    } catch (error) {
      await state.revert()
      await state.setStateRoot(preconf.snapshot().root, true)
      throw error
    }
    chain.replaceHeadState(await state.getStateRoot())
    await rebuildPending()
  }

  /**
   * Removes every sealed block above `number` (rollback, reorg, snapshot
   * revert) and restarts the pending block on the new head, empty. Returns
   * the removed blocks, oldest first, after announcing them.
   */
  async function rewind(number: bigint): Promise<StoredBlock[]> {
    if (number > chain.height()) return []
    const first = chain.genesis().number
    if (number < first)
      throw new InvalidInputError(`cannot remove block ${first}: it is the first block of this chain (on a fork, the fork block)`)
    const removed = chain.truncate(number)
    const head = chain.head()
    await preconf.start(head, nextTimestamp(head), { reuseState: false })
    if (removed.length > 0) events.emit('removedBlocks', removed)
    return removed
  }

  /** Validates a signed transaction against the pending state and adds it to the pool. */
  async function admit(tx: TypedTransaction): Promise<Hex> {
    let sender: ReturnType<TypedTransaction['getSenderAddress']>
    try {
      sender = tx.getSenderAddress()
    } catch {
      throw new TxRejectedError('invalid sender')
    }
    const from = sender.toString() as Address
    const hash = bytesToHex(tx.hash())
    const env = preconf.env()
    if (tx.gasLimit > env.gasLimit) throw new TxRejectedError('exceeds block gas limit')
    if (common.isActivatedEIP(7825) && tx.gasLimit > maxTxGas)
      throw new TxRejectedError(`transaction gas limit too high (cap: ${maxTxGas}, tx: ${tx.gasLimit})`)
    const intrinsic = tx.getIntrinsicGas()
    const minimum = 'getMinimumGasLimit' in tx ? (tx as { getMinimumGasLimit(): bigint }).getMinimumGasLimit() : intrinsic
    if (tx.gasLimit < minimum) throw new IntrinsicGasTooLowError(tx.gasLimit, minimum)
    const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
    if (env.baseFeePerGas !== undefined && feeCap < env.baseFeePerGas)
      throw new FeeCapTooLowError(feeCap, env.baseFeePerGas)
    // One read of the sender's account for both checks.
    const account = await preconf.accountOf(sender)
    const stateNonce = account?.nonce ?? 0n
    if (tx.nonce < stateNonce) throw new NonceTooLowError(from, stateNonce, tx.nonce)
    const balance = account?.balance ?? 0n
    const cost = tx.gasLimit * feeCap + tx.value + ('getBlobGas' in tx ? 0n : 0n)
    if (balance < cost) throw new InsufficientFundsError(from, balance, cost)
    pool.add({ tx, hash, from, nonce: tx.nonce })
    events.emit('pendingTx', hash)
    return hash
  }

  /** Polling filters (eth_newFilter and friends); save()/restore() for snapshots. */
  const filters = createFilterStore({ events, chain })
  /** Auto mining: the seal that will include a transaction just admitted (src/node/autoSeal.ts). */
  const autoSeal = createAutoSeal<readonly ExecutedTx[]>({
    seal: sealAnswerFirst,
    waiting: () => pool.size(),
    senders: (included) => included.map((tx) => tx.from),
    maxWaitMs: 2,
  })

  /**
   * An auto seal, queued, in two halves. The first runs the block's last
   * tick's transactions, and what the block holds is fixed (a send that
   * comes later goes into the next block in any case). Then the senders are
   * answered (the returned promise resolves, with the block's transactions),
   * and the second half (the tick's state root and snapshot, `preconf`;
   * sealTicked: header, chain append, the next pending block's system writes
   * and their trie flush, `newHead`) runs after their answers went out
   * (setImmediate: after the microtasks that write them), while the client
   * prepares its next request. The queue job lasts until
   * both halves ran, so the next write waits as before, and `settling` holds
   * every request that arrives meanwhile (src/rpc/dispatch.ts): a request
   * answered after a send sees its block sealed. A send's answer is its hash
   * either way; a failure of the second half (an internal error) is logged.
   */
  function sealAnswerFirst(started: () => void): Promise<readonly ExecutedTx[]> {
    return new Promise<readonly ExecutedTx[]>((resolve, reject) => {
      const job = queue.run(async () => {
        started()
        const publish = await runTick()
        let settled!: () => void
        const done = new Promise<void>((r) => (settled = r))
        settling = done
        resolve([...preconf.executed()])
        await new Promise((r) => setImmediate(r))
        try {
          await publish()
          await sealTicked()
        } catch (error) {
          log(`sealing block ${preconf.env().number}: ${(error as Error).stack ?? error}`)
        } finally {
          if (settling === done) settling = undefined
          settled()
        }
      })
      job.catch(reject)
    })
  }

  const sealer = createSealer({
    mining: config.mining,
    tick: () => queue.run(tick),
    seal: () => queue.run(seal),
    refresh: config.clock === 'wall' ? () => queue.run(refreshIfStale) : undefined,
    onError: (error) => log(`sealer: ${(error as Error).stack ?? error}`),
  })

  const snapshots = createSnapshots({
    chain, pool, preconf, clock, time, controls, sealer, events, write: (fn) => queue.run(fn),
  })
  // Filters are restored with the chain, so a reverted test does not see changes from the future.
  snapshots.register({ save: () => filters.save(), restore: (saved) => filters.restore(saved as SavedFilters) })

  /** What reorgs, rollbacks and dropped pre-confirmations change (src/node/reorg.ts), unqueued. */
  const reorgParts: ReorgParts = {
    chain, pool, preconf, events, time, dropped, seal, rewind, nextTimestamp, rebuildPending,
    fillAndSign: (request) => fillAndSignAs(node, request),
  }

  /** What time control, header pins and pool drops change (src/node/timeControl.ts), unqueued. */
  const controlParts: ControlParts = { chain, pool, preconf, events, clock, controls, time, seal, nextTimestamp, rebuildPending }

  const write = <T>(fn: () => Promise<T>) => queue.run(fn)
  /** One lock per sender for the sends the node fills and signs (src/node/senderLocks.ts). */
  const senderLocks = createSenderLocks()
  /** The writable parts, unqueued, for the node's own modules (fixtures) and createNodeWithParts. */
  const parts: NodeParts = {
    chain, pool, preconf, state, clock, time, events, views, snapshots, write,
    cheat: (change) => queue.run(() => cheat(change)),
    rewind: (number) => queue.run(() => rewind(number)),
  }

  const node: Node = {
    config,
    /** Set when this chain forks a live one: its upstream, fork block and read cache. */
    fork,
    common,
    chainId: common.chainId(),
    accounts,
    chain: readerOf(chain),
    events: { on: events.on, listenerCount: events.listenerCount },
    filters,
    clock: { get kind() { return clock.kind }, now: () => clock.now() },
    controls: { isImpersonated: (address: Address) => controls.isImpersonated(address) },
    snapshots: {
      take: () => snapshots.take(),
      revert: (id: bigint) => snapshots.revert(id),
      reset: () => snapshots.reset(),
      register: (participant) => snapshots.register(participant),
    },
    dropped,
    views: { resolve: views.resolve, reader: views.reader, withVm: views.withVm },
    pool: {
      get: (hash: Hex) => pool.get(hash),
      all: () => pool.all(),
      size: () => pool.size(),
      nextNonce: (from: Address, start: bigint) => pool.nextNonce(from, start),
      /** The pooled transactions executable on top of the given state nonces, in the order a block takes them. */
      ready: (stateNonce: (from: Address) => bigint) => pool.ready(stateNonce),
    },
    pending: () => preconf.snapshot(),
    sealer: { mode: () => sealer.mode() },
    sendsInFlight: () => senderLocks.size(),
    /** Decodes a raw transaction with the chain's rules. */
    decodeRaw(raw: Uint8Array): TypedTransaction {
      return decodeRawTx(raw, common)
    },
    /**
     * Admits a signed transaction and resolves once it is in the pool (or
     * pre-confirmed); `sealed`, in auto mode, settles once its block's transactions ran (the rest of the seal: `settling`).
     */
    enqueue(tx: TypedTransaction): Promise<{ hash: Hex; sealed: Promise<unknown> | undefined }> {
      // On a fork, the upstream reads the transaction will make go out now, while it waits for the queue.
      if (fork) prefetchOnFork(fork, tx)
      return queue.run(async () => {
        const hash = await admit(tx)
        const mode = sealer.mode()
        // Automine switched off by a test client: the pending block takes the transaction at once, as on Anvil and Hardhat.
        if (mode.type === 'manual' && mode.preconfirm === 'submit') await tick()
        return { hash, sealed: mode.type === 'auto' ? autoSeal.request() : undefined }
      })
    },
    /**
     * Admits a signed transaction; in auto mode it is pre-confirmed and sealed
     * before this returns, and the pending block restarted on its block
     * unless `answerFirst` (an RPC answer: see `settling`).
     */
    async submit(tx: TypedTransaction, options?: { answerFirst?: boolean }): Promise<Hex> {
      const { hash, sealed } = await node.enqueue(tx)
      if (sealed) await sealed
      if (settling && !options?.answerFirst) await settling
      return hash
    },
    /** While an auto seal's pending block restarts after its senders were answered: requests wait for it. */
    settling: () => settling,
    /**
     * Fills, signs and admits under the sender's lock, so sends from one
     * account in flight together take consecutive nonces (geth's AddrLocker);
     * waits for the block in auto mode after the lock is released.
     */
    async sendTransaction(request: CallRequest & { from: Hex }, options?: { unsigned?: boolean }): Promise<Hex> {
      const { hash, sealed } = await senderLocks.run(request.from, async () =>
        node.enqueue(await fillAndSignAs(node, request, options)),
      )
      if (sealed) await sealed
      if (settling) await settling
      return hash
    },
    async submitAndWait(tx: TypedTransaction, timeoutMs: number) {
      return waitForInclusion(node, await node.submit(tx), timeoutMs)
    },
    txpool: () => splitPool(node),
    /** Seals a block now (devnet_seal, evm_mine). */
    seal: () => queue.run(seal),
    /** Seals `count` blocks, `interval` seconds apart when given (anvil_mine, hardhat_mine). */
    mine: (count: bigint, interval: bigint) => queue.run(() => mine(count, interval)),
    /** Runs a pre-confirmation tick now (devnet_preconfirm). */
    preconfirm: () => queue.run(tick),
    ...createMiningControl({ sealer, preconfInterval: config.preconfInterval, write }),
    async close() {
      sealer.stop()
      filters.close()
      await queue.idle()
      fork?.cache.close()
    },
    ...createCheats({ cheat: parts.cheat, write, controls, token: config.token.address as Hex }),
    /**
     * Replaces the top `depth` blocks with `blocks` (anvil_reorg, devnet_reorg), through the queue; the replaced
     * blocks' transactions are dropped or go back to the pool (src/node/reorg.ts).
     */
    reorg: (depth: number, blocks: ReorgTx[][], removedTxs: 'drop' | 'requeue') =>
      queue.run(() => replaceBlocks(reorgParts, depth, blocks, removedTxs)),
    /** Removes the top `depth` blocks (anvil_rollback), through the queue. */
    rollback: (depth: number) => queue.run(() => rollback(reorgParts, depth)),
    /** Drops pre-confirmed transactions (all when `hashes` is undefined), through the queue (devnet_dropPreconfirmed). */
    dropPreconfirmed: (hashes: readonly Hex[] | undefined) => queue.run(() => dropPreconfirmed(reorgParts, hashes)),
    /** Moves the clock forward (evm_increaseTime); resolves to the total offset moved so far, in seconds. */
    increaseTime: (seconds: bigint) => queue.run(() => increaseTime(controlParts, seconds)),
    /** Sets the clock (anvil_setTime); resolves to the seconds it moved. */
    setTime: (timestamp: bigint) => queue.run(() => setTime(controlParts, timestamp)),
    /** Pins the next block's timestamp (evm_setNextBlockTimestamp). */
    setNextBlockTimestamp: (timestamp: bigint) => queue.run(() => setNextBlockTimestamp(controlParts, timestamp)),
    /** Sets or (undefined) removes the interval between block timestamps; resolves to whether one was set. */
    setBlockTimestampInterval: (seconds: bigint | undefined) => queue.run(() => setBlockTimestampInterval(controlParts, seconds)),
    /** Seals `blocks` blocks, the first at `timestamp` when given (evm_mine). */
    mineAt: (options: { timestamp?: bigint | undefined; blocks?: bigint | undefined }) => queue.run(() => mineAt(controlParts, options)),
    /** Pins header fields of the blocks to come and rebuilds the pending block under them. */
    pinBlockFields: (fields: Partial<BlockOverrides>) => queue.run(() => pinBlockFields(controlParts, fields)),
    /** Removes the pooled or pre-confirmed transactions `drop` selects; resolves to their hashes. */
    dropTransactions: (drop: (tx: { hash: Hex; from: string }) => boolean) => queue.run(() => dropTransactions(controlParts, drop)),
    /** Runs eth_simulateV1's blocks on top of `view` (src/node/simulate). */
    simulate: (id: BlockId, payload: SimulatePayload) =>
      simulate({ common, chain, state, withVm: views.withVm }, views.resolve(id), payload, simulateOptions(config)),
    /** Builds (without adding it) the block a proposer would get on `parentHash` (testing_buildBlockV1). */
    async buildPayload(parentHash: Hex, attributes: PayloadAttributes, txs: TypedTransaction[] | undefined, options: { extraData: Hex }) {
      const parent = chain.blockByHash(parentHash)
      if (!parent) throw new InvalidInputError(`parent block ${parentHash} not found`)
      const candidates = txs ?? (await readyOn(node, parent.hash))
      return buildPayload({ common, state, chain }, parent, attributes, candidates, { ...options, desiredGasLimit: config.gasLimit })
    },
    /** debug_trace*: where the traced transaction or block is, and the replay (src/node/traceOps.ts). */
    ...createTraces({ views, pending: () => preconf.snapshot(), common, state, chain, gasCap: config.rpcGasCap }),
    /** eth_call, eth_estimateGas, eth_createAccessList (src/node/calls.ts). */
    ...createCalls({ views, common, gasCap: config.rpcGasCap }),
    /** eth_getLogs and the log filters (src/node/logs.ts). */
    getLogs: (filter: LogRequest) => getLogs(node, filter),
    newLogFilter: (filter: LogRequest) => newLogFilter(node, filter),
    filterLogs: (id: Hex) => filterLogs(node, id),
    /** eth_feeHistory (src/node/feeHistory.ts). */
    feeHistory: (count: bigint, newest: BlockId, percentiles: readonly number[]) => feeHistory(node, count, newest, percentiles),
    /** Account state at any block (src/node/stateReads.ts). */
    ...createStateReads({ views, nextNonce: (from, start) => pool.nextNonce(from, start) }),
    dumpFixture: () => dumpFixture(node, parts),
    dumpFixtureText: () => dumpFixtureText(node, parts),
    async dumpFixtureToFile(file: string) {
      return writeFixtureFile(file, await dumpFixtureBytes(node, parts))
    },
    loadFixture: (fixture: LoadableFixture, options?: LoadOptions) => loadFixture(node, parts, fixture, options),
    verifyFixtureState: (fixture: LoadableFixture) => verifyLoadedState(node, parts, fixture),
    fillAndSign: (request: CallRequest & { from: Hex }, options?: { unsigned?: boolean }) => fillAndSignAs(node, request, options),
  }
  sealer.start()
  return { node, parts }
}

export type { Node } from './types.js'
export { createAddressFromString }

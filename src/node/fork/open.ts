import { type Block, createBlock, createBlockHeaderFromRPC } from '../../evm/engine.js'
import { Account, createAddressFromString, hexToBytes } from '../../evm/engine.js'
import { ConfigError } from '../../config/load.js'
import type { DevnetConfig } from '../../config/schema.js'
import { createDevCommon } from '../../evm/engine.js'
import { attachFork, enableForkState } from '../../evm/engine.js'
import { createStateManager, systemContracts } from '../../evm/engine.js'
import type { DevAccount } from '../accounts.js'
import { InvalidInputError } from '../errors.js'
import type { FirstReads } from './firstReads.js'
import { beginForkHandshake } from './handshake.js'
import { type Remote, createRemote } from './remote.js'
import { type ForkCache, type ForkReads, createForkSource } from './source.js'

/** A fork as a fixture recorded it: its pin and what it had read (fixture/fork.ts). */
export type RecordedFork = {
  /** The upstream as messages named it (redacted). */
  upstream: string
  chainId: bigint
  blockNumber: bigint
  blockHash: `0x${string}`
  reads: ForkReads
}

/** A running fork: where it reads from and what it read. */
export type Fork = {
  /** The upstream URL, redacted for messages. */
  upstream: string
  url: string
  /** The upstream's chain id (the fork's own unless `chainId` re-ids it). */
  upstreamChainId: bigint
  /** The fork block: blocks at or below it are the upstream's. */
  blockNumber: bigint
  blockHash: `0x${string}`
  remote: Remote
  cache: ForkCache
}

/**
 * Opens a fork of `config.fork.url` at its block: resolves the chain id and
 * the block (from the disk cache when this URL and pin were seen before, so a
 * warm start makes no remote call), and builds the local chain's first block
 * from the upstream header (its hash is the upstream's, so local block N+1
 * names it as parent) over a state that reads the upstream lazily. The dev
 * accounts keep their upstream nonce and code and get the configured balance,
 * as on Anvil.
 */
export async function openFork(config: DevnetConfig, accounts: DevAccount[], recorded?: RecordedFork, begun?: FirstReads) {
  const options = config.fork
  if (!options && !recorded) throw new InvalidInputError('no fork configured')
  // A fixture of a fork holds that pin's reads and the blocks above it: another pin cannot be honoured, and ignoring it would be silent.
  if (recorded && typeof options?.blockNumber === 'bigint' && options.blockNumber !== recorded.blockNumber)
    throw new ConfigError(
      `the fixture is of a fork at block ${recorded.blockNumber}, but fork.blockNumber asks for block ${options.blockNumber}: leave the fork block out (or "latest") to load the fixture, or fork block ${options.blockNumber} without it`,
    )
  // A recorded fork (a fixture of one) reads its recorded answers; the upstream, when a URL is given, only for what they lack.
  const url = options?.url ?? ''
  let remote: Remote
  let upstreamChainId: bigint
  let blockNumber: bigint
  let header: Record<string, unknown> | null
  let cache: ForkCache
  if (recorded) {
    const offline = !options || options.offline
    remote = createRemote({
      url,
      offline,
      upstream: options ? undefined : recorded.upstream,
      offlineReason: options ? undefined : 'offline: this fork was loaded from a fixture, which did not record this read (start with --fork-url to read it)',
    })
    upstreamChainId = recorded.chainId
    blockNumber = recorded.blockNumber
    // The recorded reads answer the pin's header, so nothing below would notice an upstream of another chain.
    if (!offline)
      await checkUpstream(remote, recorded).catch((error: unknown) => {
        // Its kept-alive sockets would hold the process open after the failed start.
        remote.close()
        throw error
      })
    cache = createForkSource({ remote, chainId: upstreamChainId, blockNumber, cacheDir: options?.cacheDir, recorded: recorded.reads })
    header = await cache.header(blockNumber)
  } else {
    // Its first reads begun by startDevnet (or the CLI's front) while the engine loaded, or here.
    const handshake = beginForkHandshake(options!, begun)
    remote = handshake.remote
    try {
      const pinned = await handshake.pin
      upstreamChainId = await handshake.chainId
      blockNumber = pinned.blockNumber
      const pinHash = typeof pinned.header?.hash === 'string' ? pinned.header.hash : undefined
      cache = createForkSource({ remote, chainId: upstreamChainId, blockNumber, cacheDir: handshake.cacheDir, early: begun?.early, pinHash })
      if (pinned.header) cache.seed('eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false], pinned.header)
      header = pinned.header === undefined ? await cache.header(blockNumber) : pinned.header
    } catch (error) {
      remote.close()
      throw error
    }
  }
  if (!header) throw new InvalidInputError(`fork block ${blockNumber} not found at ${remote.upstream}`)
  if (recorded && header.hash !== recorded.blockHash)
    throw new InvalidInputError(
      `fork block ${blockNumber} at ${remote.upstream} is ${String(header.hash)}, the fixture was recorded at ${recorded.blockHash}`,
    )

  // From a fixture, the config already holds the chain id the fork ran under.
  const chainId = recorded ? config.chainId : (options!.chainId ?? upstreamChainId)
  const common = createDevCommon(chainId, config.hardfork)
  const sorted = [...accounts].sort((a, b) => (a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1))
  // Read all the dev accounts at once (one JSON-RPC batch), not one round trip each in the loop below; with them
  // the system contracts the chain's blocks call (EIP-4788, 2935, 7002, 7251), which the node reads next, as it
  // builds its first pending block, one round trip each. Asked before the state is built, answered meanwhile.
  const called = systemContracts.filter(({ name }) => common.isActivatedEIP(Number(/EIP-(\d+)/.exec(name)![1])))
  const read = Promise.all([...sorted, ...called].map(({ address }) => cache.source.account(createAddressFromString(address))))
  read.catch(() => {})
  // Before the state exists: it binds its reads when constructed.
  enableForkState()
  const state = createStateManager(common)
  await attachFork(state, cache.source)
  await read
  for (const { address } of sorted) {
    const at = createAddressFromString(address)
    const account = (await state.getAccount(at)) ?? new Account()
    account.balance = config.balance
    await state.putAccount(at, account)
  }
  const stateRoot = await state.getStateRoot()

  const blockHash = header.hash as `0x${string}`
  const base = baseBlock(header, common)
  const fork: Fork = { upstream: remote.upstream, url, upstreamChainId, blockNumber, blockHash, remote, cache }
  return {
    fork,
    imported: {
      common,
      state,
      genesisBlock: base,
      blocks: [],
      stateRoot,
      remoteBlockHash: async (number: bigint) => {
        const found = await cache.header(number)
        if (!found) throw new InvalidInputError(`block ${number} not found at ${remote.upstream}`)
        return hexToBytes(found.hash as `0x${string}`)
      },
    },
  }
}

/**
 * Refuses an upstream that is not the one a fixture of a fork was recorded
 * from (another chain, or a chain without the pin block, or another block
 * there): reads it lacks would come from another state and mix with the
 * recorded ones. Two reads in one batch, once, at load.
 */
async function checkUpstream(remote: Remote, recorded: RecordedFork) {
  const pin = `0x${recorded.blockNumber.toString(16)}`
  const [chainId, header] = await Promise.all([
    remote.request<string>('eth_chainId'),
    remote.request<{ hash?: unknown } | null>('eth_getBlockByNumber', [pin, false]),
  ])
  if (BigInt(chainId) !== recorded.chainId)
    throw new InvalidInputError(`${remote.upstream} is chain ${BigInt(chainId)}, the fixture was recorded from chain ${recorded.chainId}`)
  if (!header) throw new InvalidInputError(`fork block ${recorded.blockNumber} not found at ${remote.upstream}, the fixture was recorded at ${recorded.blockHash}`)
  if (String(header.hash).toLowerCase() !== recorded.blockHash)
    throw new InvalidInputError(
      `fork block ${recorded.blockNumber} at ${remote.upstream} is ${String(header.hash)}, the fixture was recorded at ${recorded.blockHash}`,
    )
}

/**
 * The fork block as the local chain's first block: the upstream header's
 * fields (what the next block's base fee, blob gas and parent hash derive
 * from), answering the upstream's hash even where the upstream's header has
 * fields this client does not encode (an L2's).
 */
function baseBlock(json: Record<string, unknown>, common: ReturnType<typeof createDevCommon>): Block {
  const opts = { common, setHardfork: false, skipConsensusFormatValidation: true }
  const header = createBlockHeaderFromRPC(json as never, opts)
  const block = createBlock({ header, ...(common.isActivatedEIP(4895) ? { withdrawals: [] } : {}) }, opts)
  // A frozen header answers hash() from its cache: seeded with the upstream's hash.
  ;(block.header as unknown as { cache: { hash?: Uint8Array } }).cache.hash = hexToBytes(json.hash as `0x${string}`)
  return block
}

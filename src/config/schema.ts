import type { Address, Hex } from 'viem'

/** How blocks are sealed. `interval` is the CLI default, `manual` the test default. */
export type MiningConfig =
  | { type: 'interval'; blockTime: number; preconfInterval: number }
  | { type: 'auto' }
  /**
   * Nothing seals on its own. `preconfirm: 'tick'` (the default, and the
   * config's `manual`) pre-confirms only on devnet_preconfirm, so a test
   * drives every flashblock; `'submit'` pre-confirms each transaction as it
   * is admitted, which is what evm_setAutomine(false) gives: Anvil's and
   * Hardhat's pending block with automine off.
   */
  | { type: 'manual'; preconfirm?: 'tick' | 'submit' }

/** The payment token deployed at genesis. */
export type TokenConfig = {
  address: Address
  name: string
  symbol: string
  /** Units (10^-6 tokens) minted to every dev account at genesis. */
  balance: bigint
  /** Holder of owner, master minter, pauser and blacklister; dev account 0 when absent. */
  admin: Address | undefined
}

/**
 * Forking a live chain: state and history below the fork block are read from
 * `url` lazily; local blocks continue from `blockNumber`.
 */
export type ForkConfig = {
  url: string
  /** The fork block; 'latest' pins the upstream's head at start. */
  blockNumber: bigint | 'latest'
  /** Where upstream reads are cached per chain id and fork block; undefined: ~/.devnet/fork-cache. */
  cacheDir: string | undefined
  /** Re-ids the fork (signatures made on it are then not valid on the upstream chain); undefined keeps the upstream's. */
  chainId: bigint | undefined
  /** Read only the cache: replay a fork recorded earlier (same url and block) without the upstream. */
  offline: boolean
}

/** The whole, validated configuration of one devnet. */
export type DevnetConfig = {
  chainId: bigint
  hardfork: string
  mnemonic: string
  accounts: number
  /** Wei given to every dev account at genesis. */
  balance: bigint
  host: string
  port: number
  mining: MiningConfig
  /** Block time used for the virtual clock's step and simulate's default timestamp step, even when not interval mining. */
  blockTime: number
  preconfInterval: number
  clock: 'wall' | 'virtual'
  /** Genesis timestamp in seconds; the virtual clock starts here. */
  genesisTimestamp: bigint
  gasLimit: bigint
  baseFee: bigint
  /** Gas allowed to eth_call / eth_estimateGas / eth_simulateV1 (geth's --rpc.gascap). */
  rpcGasCap: bigint
  token: TokenConfig
  cors: boolean
  /** Serve the live page (src/ui) on GET / of the JSON-RPC port. */
  ui: boolean
  bodyLimit: number
  /** Most requests in one JSON-RPC batch (geth's BatchRequestLimit); a larger batch gets one -32600 "batch too large". */
  batchLimit: number
  /** Bytes of batch replies after which the remaining items get -32003 "response too large" (geth's BatchResponseMaxSize). */
  batchResponseLimit: number
  /**
   * The directory JSON-RPC may read and write fixtures in (devnet_dumpFixture /
   * devnet_loadFixture paths resolve inside it), relative to the working
   * directory. `allowFs` lifts the confinement: paths resolve from the working
   * directory and may go anywhere.
   */
  fixturesDir: string
  allowFs: boolean
  debug: boolean
  quiet: boolean
  logs: { maxBlockRange: number | undefined; maxResults: number | undefined }
  /**
   * eth_simulateV1: `computeStateRoot` reports each simulated block's real
   * state root (geth) instead of 32 zero bytes (Base's reth); `timestampStep`
   * is the default seconds between simulated blocks. Undefined means: on for an
   * imported chain, off on the dev chain; 12 s on an imported chain, the block
   * time rounded up to whole seconds on the dev chain.
   */
  simulate: { computeStateRoot: boolean | undefined; timestampStep: number | undefined }
  /** Geth-format genesis file and RLP chain to import instead of the dev genesis. */
  genesis: string | undefined
  import: string | undefined
  forkchoice: string | undefined
  fixture: string | undefined
  dumpFixture: string | undefined
  preset: string | undefined
  extraData: Hex
  /** Fork a live chain instead of starting from the dev genesis. */
  fork: ForkConfig | undefined
}

/** Mnemonic of the accounts Anvil and Hardhat prefund, so existing scripts work. */
export const defaultMnemonic =
  'test test test test test test test test test test test junk'

/** A fixed, documented address for the token on the dev chain ("3009" for EIP-3009). */
export const defaultTokenAddress =
  '0x3009300930093009300930093009300930093009' as const

export const defaultConfig: DevnetConfig = {
  chainId: 31337n,
  hardfork: 'osaka',
  mnemonic: defaultMnemonic,
  accounts: 10,
  balance: 10_000n * 10n ** 18n,
  host: '127.0.0.1',
  port: 8545,
  mining: { type: 'interval', blockTime: 2000, preconfInterval: 200 },
  blockTime: 2000,
  preconfInterval: 200,
  clock: 'wall',
  genesisTimestamp: 1_767_225_600n, // 2026-01-01T00:00:00Z
  gasLimit: 30_000_000n,
  baseFee: 1_000_000_000n,
  rpcGasCap: 50_000_000n,
  token: {
    address: defaultTokenAddress,
    name: 'USD Coin',
    symbol: 'USDC',
    balance: 1_000_000n * 10n ** 6n,
    admin: undefined,
  },
  cors: true,
  ui: true,
  bodyLimit: 10 * 1024 * 1024,
  batchLimit: 1000,
  batchResponseLimit: 25_000_000,
  fixturesDir: 'fixtures',
  allowFs: false,
  debug: false,
  quiet: false,
  logs: { maxBlockRange: undefined, maxResults: undefined },
  simulate: { computeStateRoot: undefined, timestampStep: undefined },
  genesis: undefined,
  import: undefined,
  forkchoice: undefined,
  fixture: undefined,
  dumpFixture: undefined,
  preset: undefined,
  extraData: '0x',
  fork: undefined,
}

/**
 * Presets mirror a public chain closely enough that tools with its defaults
 * work unmodified. There is deliberately no preset for a mainnet chain id
 * with the real USDC address: a signature made against it would be valid on
 * the real chain.
 */
export const presets: Record<string, { chainId: bigint; token: Partial<TokenConfig> }> = {
  'base-sepolia': {
    chainId: 84532n,
    token: {
      address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      name: 'USDC',
      symbol: 'USDC',
    },
  },
}

/** Real USDC deployments by chain id: a config that reproduces one is refused. */
export const productionUsdc: Record<string, string> = {
  '1': '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  '8453': '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  '10': '0x0b2c639c533813f4aa9d7837caf62653d097ff85',
  '42161': '0xaf88d065e77c8cc2239327c5edbb4a5ba82e8836',
  '137': '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
}

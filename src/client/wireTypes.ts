import type {
  Address,
  BlockTag,
  ExactPartial,
  Hash,
  Hex,
  LogTopic,
  Quantity,
  RpcBlockIdentifier,
  RpcBlockNumber,
  RpcBlockOverrides,
  RpcStateOverride,
  RpcTransactionRequest,
} from 'viem'

/**
 * The wire shapes of devnet's JSON-RPC methods that viem has no type for:
 * the parameters devnet accepts beyond the spec (EIP-1898 block objects
 * everywhere, Anvil's loose numbers) and the results of devnet_*, the
 * tracers, testing_buildBlockV1 and eth_config. Types only, viem's only:
 * this is what a client sees, so it imports nothing of the server (the
 * type tests in test/client/schema.test.ts hold the node's own types to
 * these).
 */

/** A block as every devnet method takes one: a number, a tag, or an EIP-1898 `{ blockHash }` / `{ blockNumber }`. */
export type BlockRef = RpcBlockNumber | BlockTag | RpcBlockIdentifier

/** A call object (eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall, eth_simulateV1): every field optional. */
export type CallRequest = ExactPartial<RpcTransactionRequest>

/** A transaction devnet fills and signs for a dev account or an impersonated one (eth_sendTransaction): `from` required. */
export type SendRequest = RpcTransactionRequest & { from: Address }

/**
 * A number as the Anvil and Hardhat methods take it: a hex quantity (leading
 * zeros allowed), a JSON number, or a decimal string.
 */
export type LooseUint = Quantity | number | `${number}`

/** A 32-byte storage word as anvil_setStorageAt takes it: hex of at most 32 bytes, or a JSON number. */
export type StorageWord = Hex | number

/** A log filter (eth_getLogs, eth_newFilter): a block range or one block hash, never both. */
export type LogFilter = {
  address?: Address | readonly Address[] | undefined
  topics?: readonly LogTopic[] | undefined
} & (
  | { fromBlock?: BlockRef | undefined; toBlock?: BlockRef | undefined; blockHash?: undefined }
  | { fromBlock?: undefined; toBlock?: undefined; blockHash?: Hash | undefined }
)

/** eth_feeHistory's answer: viem's fields plus the blob fee fields of Cancun. */
export type DevnetFeeHistory = {
  oldestBlock: Quantity
  baseFeePerGas: Quantity[]
  gasUsedRatio: number[]
  /** Present when reward percentiles were asked for. */
  reward?: Quantity[][] | undefined
  baseFeePerBlobGas: Quantity[]
  blobGasUsedRatio: number[]
}

/** A block as devnet_seal and devnet_reorg name it. */
export type BlockSummary = { number: Quantity; hash: Hash }

/** How blocks are sealed (devnet_status, fixtures). */
export type MiningMode =
  | { type: 'interval'; blockTime: number; preconfInterval: number }
  | { type: 'auto' }
  | { type: 'manual'; preconfirm?: 'tick' | 'submit' }

/** devnet_status: head, pending (pre-confirmed) block, pool, mining, clock, token, fork and resource counts. */
export type DevnetStatus = {
  head: { number: Quantity; hash: Hash; timestamp: Quantity }
  pending: {
    number: Quantity
    /** Flashblock index within the pending block. */
    index: number
    parentHash: Hash
    timestamp: Quantity
    transactionCount: number
    stateRoot: Hash
  }
  /** Transactions waiting in the pool (not yet pre-confirmed). */
  pool: number
  mining: MiningMode
  clock: { kind: 'wall' | 'virtual'; now: Quantity }
  token: { address: Address; name: string; symbol: string; decimals: number }
  /** On a fork only. */
  fork?: {
    upstream: string
    chainId: Quantity
    blockNumber: Quantity
    blockHash: Hash
    remoteCalls: Record<string, number>
  }
  resources: { filters: number; filterItems: number; listeners: number }
}

/** devnet_memory: process.memoryUsage() in bytes. */
export type DevnetMemory = { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number }

/** A receipt's fields a block does not hold, as a fixture stores them. */
export type FixtureReceipt = {
  from: Address
  status: 0 | 1
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress: Address | null
  logs: { address: Address; topics: Hex[]; data: Hex }[]
  blobGasUsed?: Hex
  blobGasPrice?: Hex
}

/**
 * A version-1 fixture: what devnet_dumpFixture without a path returns and
 * devnet_loadFixture takes (the format is described in
 * src/node/fixture/format.ts).
 */
export type DevnetFixture = {
  version: 1
  config: {
    chainId: Hex
    hardfork: string
    mnemonic: string
    accounts: number
    balance: Hex
    genesisTimestamp: Hex
    gasLimit: Hex
    baseFee: Hex
    extraData: Hex
    token: { address: Address; name: string; symbol: string; balance: Hex; admin: Address | null }
  }
  head: { number: Hex; hash: Hex; stateRoot: Hex }
  forkchoice: { safe: Hex | null; finalized: Hex | null }
  clock: { kind: 'wall' | 'virtual'; value: string }
  time: { next: Hex | null; interval: Hex | null }
  mining: MiningMode
  pool: Hex[]
  pending: { timestamp: Hex; index: number; transactions: Hex[]; lastTick: number; root: Hex }
  blocks: { hash: Hex; rlp: Hex; receipts: FixtureReceipt[] }[]
  state: { nodes: Record<Hex, Hex>; code: Record<Hex, Hex> }
  /** On a fixture of a fork: the pin and every upstream answer read, so the fork loads offline. */
  fork?: DevnetForkSection
  /** Blocks below the head that read at another root than their header's: a cheat (anvil_setBalance, ...) made while each was the head. */
  cheatedRoots?: { number: Hex; stateRoot: Hex }[]
}

/** The `fork` section of a fixture of a fork. */
export type DevnetForkSection = {
  /** The upstream's name, without credentials. */
  upstream: string
  chainId: Hex
  blockNumber: Hex
  blockHash: Hex
  /** The local state root at the pin. */
  stateRoot: Hex
  reads: {
    /** address → [nonce, balance, code], or null for an account the upstream does not have. */
    accounts: Record<string, [nonce: Hex, balance: Hex, code: Hex] | null>
    storage: Record<string, Record<string, Hex>>
    /** Other upstream reads at fixed blocks: "method:params" → result. */
    reads: Record<string, unknown>
  }
}

/**
 * A fixture file as JSON (what devnet writes to disk, version 3; version 2 is still read): version 1's head, then
 * `chain`, the compressed blocks and state.
 */
export type DevnetFixtureV2 = Omit<DevnetFixture, 'version' | 'blocks' | 'state'> & { version: 2 | 3; chain: string }

/** geth's TraceConfig: the struct logger's switches, or `callTracer` with its config. */
export type TraceConfig =
  | {
      tracer?: '' | null | undefined
      disableStack?: boolean | undefined
      disableStorage?: boolean | undefined
      enableMemory?: boolean | undefined
      enableReturnData?: boolean | undefined
      /** Accepted and ignored: a replay is never abandoned. */
      timeout?: string | undefined
      reexec?: number | undefined
    }
  | {
      tracer: 'callTracer'
      tracerConfig?: { onlyTopCall?: boolean | undefined; withLog?: boolean | undefined } | undefined
      timeout?: string | undefined
      reexec?: number | undefined
    }

/** debug_traceCall's config: a TraceConfig plus eth_call's state and block overrides. */
export type TraceCallConfig = TraceConfig & {
  stateOverrides?: RpcStateOverride | undefined
  blockOverrides?: RpcBlockOverrides | undefined
}

/** One step of geth's struct logger. */
export type StructLog = {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  stack?: Hex[]
  returnData?: Hex
  memory?: Hex[]
  storage?: Record<Hex, Hex>
  refund?: number
}

/** The struct logger's result of one transaction (the default tracer). */
export type StructLogTrace = { gas: number; failed: boolean; returnValue: Hex; structLogs: StructLog[] }

/** One frame of geth's callTracer. */
export type CallFrame = {
  type: string
  from: Hex
  to?: Hex
  value?: Hex
  gas: Hex
  gasUsed: Hex
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  logs?: { address: Hex; topics: Hex[]; data: Hex; position: Hex }[]
  calls?: CallFrame[]
}

/** What a tracer answers for one transaction: the struct log, or the call tree with `callTracer`. */
export type TraceResult = StructLogTrace | CallFrame

/** testing_buildBlockV1's payload attributes (engine API). */
export type PayloadAttributes = {
  timestamp: Quantity
  prevRandao: Hash
  suggestedFeeRecipient: Address
  withdrawals?: readonly RpcWithdrawal[] | null | undefined
  parentBeaconBlockRoot?: Hash | null | undefined
}

/** A withdrawal on the wire. */
export type RpcWithdrawal = { index: Quantity; validatorIndex: Quantity; address: Address; amount: Quantity }

/** testing_buildBlockV1's answer: engine_getPayload's envelope. */
export type BuiltPayload = {
  executionPayload: {
    parentHash: Hash
    feeRecipient: Address
    stateRoot: Hash
    receiptsRoot: Hash
    logsBloom: Hex
    prevRandao: Hash
    blockNumber: Quantity
    gasLimit: Quantity
    gasUsed: Quantity
    timestamp: Quantity
    extraData: Hex
    baseFeePerGas: Quantity
    blockHash: Hash
    transactions: Hex[]
    withdrawals?: RpcWithdrawal[]
    blobGasUsed?: Quantity
    excessBlobGas?: Quantity
  }
  blockValue: Quantity
  blobsBundle: { commitments: Hex[]; proofs: Hex[]; blobs: Hex[] }
  executionRequests?: Hex[]
  shouldOverrideBuilder: boolean
}

/** One fork as eth_config (EIP-7910) describes it. */
export type EthForkConfig = {
  activationTime: number
  blobSchedule?: { target: number; max: number; baseFeeUpdateFraction: number }
  chainId: Quantity
  forkId: Hex
  precompiles: Record<string, string>
  systemContracts: Record<string, string>
}

/** eth_config: the current fork, the next and the last scheduled one (null when none is ahead). */
export type EthConfig = { current: EthForkConfig; next: EthForkConfig | null; last: EthForkConfig | null }

/** What history the node keeps, per resource (eth_capabilities). */
export type HistoryCapability = { disabled: boolean; oldestBlock: Quantity }

/** eth_capabilities: the head and what history each resource serves. */
export type EthCapabilities = {
  head: { number: Quantity; hash: Hash }
  state: HistoryCapability
  tx: HistoryCapability
  logs: HistoryCapability
  receipts: HistoryCapability
  blocks: HistoryCapability
  stateproofs: HistoryCapability
}

/** A number as devnet_checkAuthorization reads a pasted one: decimal or 0x hex string, or a JSON number. */
type PastedNumber = string | number

/** The EIP-3009 fields of a pasted authorization; `primaryType` defaults by shape, a missing domain means this devnet's token. */
type PastedFields = {
  primaryType?: 'ReceiveWithAuthorization' | 'TransferWithAuthorization' | undefined
  domain?: { name: string; version: string; chainId: PastedNumber; verifyingContract: Address } | undefined
  from: Address
  to: Address
  value: PastedNumber
  validAfter: PastedNumber
  validBefore: PastedNumber
  nonce: Hash
}

/**
 * A signed EIP-3009 authorization as a merchant holds one: devnet/payments'
 * record (`primaryType` defaults to ReceiveWithAuthorization), or an x402
 * payment payload (TransferWithAuthorization).
 */
export type PastedAuthorization =
  | { authorization: PastedFields; signature: Hex }
  | {
      x402Version?: number | undefined
      scheme?: string | undefined
      network?: string | undefined
      payload: { authorization: PastedFields; signature: Hex }
    }

/** devnet_checkAuthorization's answer: devnet/payments' checkBeforeCapture on the pending state. */
export type AuthorizationCheck = {
  ok: boolean
  /** Every failing reason (devnet/payments' FailureReason) with its message. */
  failures: { reason: string; message: string }[]
  /** Reads the token did not answer. */
  skipped: string[]
  method: 'receiveWithAuthorization' | 'transferWithAuthorization'
  /** The pending block's timestamp the validity window was checked against. */
  timestamp: Quantity
  authorization: {
    primaryType: 'ReceiveWithAuthorization' | 'TransferWithAuthorization'
    domain: { name: string; version: string; chainId: number; verifyingContract: Address }
    from: Address
    to: Address
    /** Decimal strings. */
    value: string
    validAfter: string
    validBefore: string
    nonce: Hash
  }
  submitter: Address
}

import type {
  AccessList,
  Address,
  BlockTag,
  EIP1193RequestFn,
  Hash,
  Hex,
  PublicRpcSchema,
  Quantity,
  RpcBlock,
  RpcBlockNumber,
  RpcBlockOverrides,
  RpcLog,
  RpcProof,
  RpcStateOverride,
  RpcTransaction,
  RpcTransactionReceipt,
  TestRpcSchema,
  WalletRpcSchema,
} from 'viem'
import type {
  AuthorizationCheck,
  BlockRef,
  BlockSummary,
  BuiltPayload,
  CallRequest,
  EthCapabilities,
  EthConfig,
  DevnetFixture,
  DevnetFixtureV2,
  DevnetMemory,
  DevnetStatus,
  DevnetFeeHistory,
  LogFilter,
  LooseUint,
  PastedAuthorization,
  PayloadAttributes,
  SendRequest,
  StorageWord,
  TraceCallConfig,
  TraceConfig,
  TraceResult,
} from './wireTypes.js'

/**
 * devnet's JSON-RPC methods as a viem RPC schema (EIP-1193 style): one entry
 * per method the in-process Devnet serves, with its wire parameters and
 * result. `Devnet.request` is `EIP1193RequestFn<DevnetRpcSchema>`, so an
 * unknown method or wrong params fail to compile and the result is typed;
 * pass the same schema to a viem client (`createClient({ rpcSchema:
 * rpcSchema<DevnetRpcSchema>() })`) to type its `request` too.
 *
 * Written by hand, against the method files under src/rpc/methods: their
 * decoders take `unknown` and return native values, and their handlers
 * return wire objects built as records, so neither carries the wire types.
 * viem's own entries are reused where devnet takes and answers exactly what
 * they say; the rest say what devnet does (trailing parameters optional, as
 * geth; EIP-1898 block objects wherever a block is taken). Methods without
 * parameters take no `params` (viem's convention); methods whose parameters
 * are all optional take `params` or none. `devnetMethodNames` lists the
 * same methods at run time, and test/client/schema.test.ts holds both to
 * the registry.
 */
export type DevnetRpcSchema = [
  ...EthSchema,
  ...DebugSchema,
  ...TestSchema,
  ...DevnetSchema,
]

/** Every method name devnet serves. */
export type DevnetMethod = DevnetRpcSchema[number]['Method']

/** `request` typed by the devnet schema: what `Devnet.request` is. */
export type DevnetRequestFn = EIP1193RequestFn<DevnetRpcSchema>

/** viem's entry for `method`, reused where devnet takes and answers exactly that. */
type Public<method extends PublicRpcSchema[number]['Method']> = Extract<PublicRpcSchema[number], { Method: method }>
type Wallet<method extends WalletRpcSchema[number]['Method']> = Extract<WalletRpcSchema[number], { Method: method }>
type Test<method extends string> = Extract<TestRpcSchema<'anvil'>[number], { Method: method }>

/** An entry with parameters. */
type Entry<method extends string, parameters, returnType> = {
  Method: method
  Parameters: parameters
  ReturnType: returnType
}

/** An entry without parameters: called with no `params`, as viem calls them. */
type NoParams<method extends string, returnType> = {
  Method: method
  Parameters?: undefined
  ReturnType: returnType
}

/**
 * A method whose parameters are all optional, as two entries: viem turns an
 * optional `Parameters` into a required `params` key, so the entry without
 * `params` is spelled out.
 */
type OptionalParams<method extends string, parameters, returnType> = [
  NoParams<method, returnType>,
  Entry<method, parameters, returnType>,
]

/**
 * The same setter under Anvil's and Hardhat's names: Anvil answers `null`
 * (or the handler's value), Hardhat `true` (src/rpc/methods/harness.ts).
 */
type AnvilHardhat<name extends string, parameters, anvilReturn = null> = [
  Entry<`anvil_${name}`, parameters, anvilReturn>,
  Entry<`hardhat_${name}`, parameters, true>,
]

/** One item of eth_getFilterChanges: a log, a block or transaction hash, or a full pending transaction (`eth_newPendingTransactionFilter [true]`). */
type FilterChange = RpcLog | Hash | RpcTransaction

/** eth_subscribe's subscription kinds and their options (over WebSocket; HTTP and in-process answer -32601). */
type Subscription =
  | readonly [kind: 'newHeads' | 'newFlashblocks']
  | readonly [kind: 'logs' | 'pendingLogs', filter?: Pick<LogFilter, 'address' | 'topics'>]
  | readonly [kind: 'newPendingTransactions' | 'newFlashblockTransactions', fullTransactions?: boolean]

/** eth_simulateV1's payload and answer, as viem types them. */
type Simulate = Public<'eth_simulateV1'>

/** The standard namespaces: eth_*, net_*, web3_*, personal_sign, txpool_*. */
type EthSchema = [
  Public<'web3_clientVersion'>,
  Entry<'web3_sha3', readonly [data: Hex], Hash>,
  Public<'net_listening'>,
  Public<'net_peerCount'>,
  /** The chain id in decimal, as geth answers. */
  NoParams<'net_version', `${number}`>,
  Public<'eth_chainId'>,
  Public<'eth_blockNumber'>,
  NoParams<'eth_syncing', false>,
  Test<'eth_mining'>,
  NoParams<'eth_hashrate', Quantity>,
  Public<'eth_coinbase'>,
  Wallet<'eth_accounts'>,
  Public<'eth_gasPrice'>,
  NoParams<'eth_baseFee', Quantity>,
  Public<'eth_maxPriorityFeePerGas'>,
  Public<'eth_blobBaseFee'>,
  Entry<'eth_feeHistory', readonly [blockCount: Quantity, newestBlock: BlockRef, rewardPercentiles?: readonly number[]], DevnetFeeHistory>,
  Entry<'eth_getBalance', readonly [address: Address, block?: BlockRef], Quantity>,
  Entry<'eth_getTransactionCount', readonly [address: Address, block?: BlockRef], Quantity>,
  Entry<'eth_getCode', readonly [address: Address, block?: BlockRef], Hex>,
  Entry<'eth_getStorageAt', readonly [address: Address, slot: Hex, block?: BlockRef], Hex>,
  Entry<'eth_getStorageValues', readonly [requests: Record<Address, readonly Hex[]>, block?: BlockRef], Record<Address, Hex[]>>,
  Public<'eth_call'>,
  Entry<
    'eth_estimateGas',
    readonly [request: CallRequest, block?: BlockRef, stateOverride?: RpcStateOverride, blockOverrides?: RpcBlockOverrides],
    Quantity
  >,
  Entry<
    'eth_createAccessList',
    readonly [request: CallRequest, block?: BlockRef, stateOverride?: RpcStateOverride],
    { accessList: AccessList; gasUsed: Quantity; error?: string | undefined }
  >,
  Entry<'eth_simulateV1', readonly [payload: Simulate['Parameters'][0], block?: BlockRef], Simulate['ReturnType']>,
  Entry<'eth_getBlockByNumber', readonly [block: BlockRef, includeTransactions?: boolean], RpcBlock | null>,
  Entry<'eth_getBlockByHash', readonly [hash: Hash, includeTransactions?: boolean], RpcBlock | null>,
  Entry<'eth_getBlockReceipts', readonly [block: BlockRef], RpcTransactionReceipt[] | null>,
  Entry<'eth_getBlockTransactionCountByNumber', readonly [block: BlockRef], Quantity | null>,
  Entry<'eth_getBlockTransactionCountByHash', readonly [hash: Hash], Quantity | null>,
  Entry<'eth_getUncleCountByBlockNumber', readonly [block: BlockRef], Quantity | null>,
  Entry<'eth_getUncleCountByBlockHash', readonly [hash: Hash], Quantity | null>,
  Entry<'eth_getTransactionByBlockNumberAndIndex', readonly [block: BlockRef, index: Quantity], RpcTransaction | null>,
  Public<'eth_getTransactionByBlockHashAndIndex'>,
  Public<'eth_getTransactionByHash'>,
  Public<'eth_getTransactionReceipt'>,
  Public<'eth_sendRawTransaction'>,
  Entry<'eth_sendTransaction', readonly [request: SendRequest], Hash>,
  /** Anvil's: sends from any address without its key. */
  Entry<'eth_sendUnsignedTransaction', readonly [request: SendRequest], Hash>,
  /** EIP-7966: answers with the receipt once the transaction is pre-confirmed; `timeout` in ms (at most 6000). */
  Entry<'eth_sendRawTransactionSync', readonly [signedTransaction: Hex, timeout?: number | Quantity], RpcTransactionReceipt>,
  Wallet<'eth_sign'>,
  Wallet<'personal_sign'>,
  Entry<
    'eth_signTypedData_v4',
    readonly [
      address: Address,
      typedData:
        | string
        | { domain?: Record<string, unknown>; types: Record<string, readonly { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> },
    ],
    Hex
  >,
  Entry<'eth_getLogs', readonly [filter: LogFilter], RpcLog[]>,
  Entry<'eth_newFilter', readonly [filter: LogFilter], Quantity>,
  Public<'eth_newBlockFilter'>,
  ...OptionalParams<'eth_newPendingTransactionFilter', readonly [fullTransactions?: boolean], Quantity>,
  Entry<'eth_getFilterChanges', readonly [filterId: Quantity], FilterChange[]>,
  Public<'eth_getFilterLogs'>,
  Public<'eth_uninstallFilter'>,
  Entry<'eth_subscribe', Subscription, Hex>,
  Entry<'eth_unsubscribe', readonly [subscriptionId: Hex], boolean>,
  Entry<'eth_getProof', readonly [address: Address, storageKeys: readonly Hex[], block?: BlockRef], RpcProof>,
  /** EIP-7910: the fork the head runs, and the next and last scheduled ones. */
  NoParams<'eth_config', EthConfig>,
  NoParams<'eth_capabilities', EthCapabilities>,
  Test<'txpool_status'>,
  Test<'txpool_content'>,
  Entry<
    'txpool_contentFrom',
    readonly [address: Address],
    { pending: Record<string, RpcTransaction>; queued: Record<string, RpcTransaction> }
  >,
  Test<'txpool_inspect'>,
]

/** geth's debug_* (raw encodings and tracers) and testing_buildBlockV1. */
type DebugSchema = [
  Entry<'debug_getRawHeader', readonly [block: BlockRef], Hex>,
  Entry<'debug_getRawBlock', readonly [block: BlockRef], Hex>,
  Entry<'debug_getRawReceipts', readonly [block: BlockRef], Hex[]>,
  /** `0x` for an unknown transaction, as geth. */
  Entry<'debug_getRawTransaction', readonly [hash: Hash], Hex>,
  Entry<'debug_traceCall', readonly [request: CallRequest, block?: BlockRef, config?: TraceCallConfig], TraceResult>,
  Entry<'debug_traceTransaction', readonly [hash: Hash, config?: TraceConfig], TraceResult>,
  Entry<
    'debug_traceBlockByNumber',
    readonly [block: RpcBlockNumber | BlockTag, config?: TraceConfig],
    { txHash: Hash; result: TraceResult }[]
  >,
  Entry<'debug_traceBlockByHash', readonly [hash: Hash, config?: TraceConfig], { txHash: Hash; result: TraceResult }[]>,
  Entry<
    'testing_buildBlockV1',
    readonly [parentHash: Hash, attributes: PayloadAttributes, transactions?: readonly Hex[] | null, extraData?: Hex],
    BuiltPayload
  >,
]

/** The test-node methods of Anvil, Hardhat and ganache (evm_*), as devnet answers them. */
type TestSchema = [
  ...OptionalParams<
    'evm_mine',
    readonly [options?: Quantity | number | { timestamp?: LooseUint | undefined; blocks?: LooseUint | undefined }],
    '0x0'
  >,
  Test<'evm_snapshot'>,
  NoParams<'anvil_snapshot', Quantity>,
  /** false for an unknown id. */
  Entry<'evm_revert', readonly [id: LooseUint], boolean>,
  Entry<'anvil_revert', readonly [id: LooseUint], boolean>,
  /** Answers the total offset moved so far, in seconds. */
  Entry<'evm_increaseTime', readonly [seconds: LooseUint], number>,
  Entry<'evm_setNextBlockTimestamp', readonly [timestamp: LooseUint], null>,
  /** Answers the seconds the clock moved. */
  Entry<'anvil_setTime', readonly [timestamp: LooseUint], number>,
  Entry<'evm_setTime', readonly [timestamp: LooseUint], number>,
  Entry<'anvil_setBlockTimestampInterval', readonly [seconds: LooseUint], null>,
  /** In milliseconds, a whole number of seconds, as viem's hardhat mode sends it. */
  Entry<'hardhat_setBlockTimestampInterval', readonly [milliseconds: LooseUint], true>,
  /** Whether there was an interval to remove. */
  NoParams<'anvil_removeBlockTimestampInterval', boolean>,
  NoParams<'hardhat_removeBlockTimestampInterval', boolean>,
  ...AnvilHardhat<'setBalance', readonly [address: Address, balance: LooseUint]>,
  Entry<'evm_setAccountBalance', readonly [address: Address, balance: LooseUint], null>,
  ...AnvilHardhat<'setCode', readonly [address: Address, code: Hex]>,
  Entry<'evm_setAccountCode', readonly [address: Address, code: Hex], null>,
  ...AnvilHardhat<'setNonce', readonly [address: Address, nonce: LooseUint]>,
  Entry<'evm_setAccountNonce', readonly [address: Address, nonce: LooseUint], null>,
  ...AnvilHardhat<'setStorageAt', readonly [address: Address, slot: StorageWord, value: StorageWord], true>,
  Entry<'evm_setAccountStorageAt', readonly [address: Address, slot: StorageWord, value: StorageWord], true>,
  ...AnvilHardhat<'impersonateAccount', readonly [address: Address]>,
  ...AnvilHardhat<'stopImpersonatingAccount', readonly [address: Address]>,
  ...AnvilHardhat<'autoImpersonateAccount', readonly [enabled: boolean]>,
  Entry<'evm_setAutomine', readonly [enabled: boolean], null>,
  ...AnvilHardhat<'setAutomine', readonly [enabled: boolean]>,
  NoParams<'anvil_getAutomine', boolean>,
  NoParams<'hardhat_getAutomine', boolean>,
  /** Milliseconds; 0 turns interval mining off. */
  Entry<'evm_setIntervalMining', readonly [milliseconds: LooseUint], null>,
  /** Seconds, Anvil's unit. */
  Entry<'anvil_setIntervalMining', readonly [seconds: LooseUint], null>,
  ...OptionalParams<'anvil_mine', readonly [count?: LooseUint, interval?: LooseUint], null>,
  ...OptionalParams<'hardhat_mine', readonly [count?: LooseUint, interval?: LooseUint], true>,
  /** The hash when the transaction was dropped, else null. */
  Entry<'anvil_dropTransaction', readonly [hash: Hash], Hash | null>,
  Entry<'hardhat_dropTransaction', readonly [hash: Hash], boolean>,
  NoParams<'anvil_dropAllTransactions', null>,
  NoParams<'hardhat_dropAllTransactions', true>,
  Entry<'anvil_removePoolTransactions', readonly [address: Address], null>,
  Entry<'evm_setBlockGasLimit', readonly [gasLimit: LooseUint], true>,
  ...AnvilHardhat<'setNextBlockBaseFeePerGas', readonly [baseFeePerGas: LooseUint]>,
  ...AnvilHardhat<'setCoinbase', readonly [address: Address]>,
  /** Always refused: fees follow the base fee (as Anvil after London). */
  ...AnvilHardhat<'setMinGasPrice', readonly [gasPrice: LooseUint], never>,
  ...AnvilHardhat<'setLoggingEnabled', readonly [enabled: boolean]>,
  /** No options: back to genesis; `forking`: a fork of that URL and block. */
  ...OptionalParams<'anvil_reset', readonly [options?: ResetOptions], null>,
  ...OptionalParams<'hardhat_reset', readonly [options?: ResetOptions], true>,
  /** Always refused (-32601): switch the fork with anvil_reset. */
  ...OptionalParams<'anvil_setRpcUrl', readonly [url?: string], never>,
  ...OptionalParams<'hardhat_setRpcUrl', readonly [url?: string], never>,
  /** Replaces the top `depth` blocks; pairs put transactions in the new blocks (index from the oldest). */
  Entry<
    'anvil_reorg',
    | readonly [options: { depth: number | Quantity; txBlockPairs?: readonly ReorgPair[] | undefined }]
    | readonly [depth: number | Quantity, txBlockPairs?: readonly ReorgPair[]],
    null
  >,
  ...OptionalParams<'anvil_rollback', readonly [depth?: number | Quantity], null>,
]

/** anvil_reset's options. */
type ResetOptions = {
  forking?: { jsonRpcUrl?: string | undefined; blockNumber?: number | Quantity | null | undefined } | undefined
}

/** A transaction for a replacement block (signed bytes, or a request a dev account signs) and its block index. */
type ReorgPair = readonly [transaction: Hex | CallRequest, blockIndex: number | Quantity]

/** devnet's own methods: sealing, pre-confirmation, reorgs, token cheats, fixtures, status. */
type DevnetSchema = [
  NoParams<'devnet_seal', BlockSummary>,
  NoParams<'devnet_preconfirm', { number: Quantity; index: number; transactions: Hash[] }>,
  NoParams<'devnet_status', DevnetStatus>,
  NoParams<'devnet_memory', DevnetMemory>,
  /**
   * Replaces the top `depth` blocks. Without `transactions` their transactions
   * go back to the pool; with them (one list, or one list per block) only those
   * are mined.
   */
  Entry<
    'devnet_reorg',
    readonly [options: { depth: number | Quantity; transactions?: readonly Hex[] | readonly (readonly Hex[])[] | undefined }],
    { removed: BlockSummary[]; added: BlockSummary[] }
  >,
  /** Drops pre-confirmed transactions (all without `hashes`); the sender's later ones go back to the pool. */
  ...OptionalParams<'devnet_dropPreconfirmed', readonly [hashes?: readonly Hash[]], { dropped: Hash[]; requeued: Hash[] }>,
  /** A token amount in base units: hex, decimal string or a safe integer. */
  Entry<'devnet_setTokenBalance', readonly [address: Address, amount: Quantity | `${number}` | number], null>,
  Entry<'devnet_setTokenPaused', readonly [paused: boolean], null>,
  Entry<'devnet_setTokenBlacklisted', readonly [address: Address, blacklisted: boolean], null>,
  /** Without a path: the fixture itself; with one (inside the fixtures directory): writes it there. */
  NoParams<'devnet_dumpFixture', DevnetFixture>,
  Entry<'devnet_dumpFixture', readonly [path: string], { path: string; bytes: number }>,
  /** A path (inside the fixtures directory) or the fixture object; answers the new head. */
  Entry<
    'devnet_loadFixture',
    readonly [fixture: string | DevnetFixture | DevnetFixtureV2, options?: { verifyState?: boolean | undefined }],
    { number: Quantity; hash: Hash; blocks: number }
  >,
  /** Would this signed EIP-3009 authorization capture now? `submitter` defaults to the payee. */
  Entry<'devnet_checkAuthorization', readonly [authorization: PastedAuthorization, submitter?: Address], AuthorizationCheck>,
]

/**
 * Every method of DevnetRpcSchema, at run time (the registry test reads it).
 * The `satisfies` fails to compile on a name the schema lacks; the type test
 * (test/client/schema.test.ts) fails on a schema method missing here.
 */
export const devnetMethodNames = [
  'web3_clientVersion', 'web3_sha3', 'net_listening', 'net_peerCount', 'net_version',
  'eth_chainId', 'eth_blockNumber', 'eth_syncing', 'eth_mining', 'eth_hashrate', 'eth_coinbase', 'eth_accounts',
  'eth_gasPrice', 'eth_baseFee', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_feeHistory',
  'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_getStorageValues',
  'eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1',
  'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber', 'eth_getBlockTransactionCountByHash',
  'eth_getUncleCountByBlockNumber', 'eth_getUncleCountByBlockHash',
  'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByHash', 'eth_getTransactionReceipt',
  'eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sendUnsignedTransaction', 'eth_sendRawTransactionSync',
  'eth_sign', 'personal_sign', 'eth_signTypedData_v4',
  'eth_getLogs', 'eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter',
  'eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter', 'eth_subscribe', 'eth_unsubscribe',
  'eth_getProof', 'eth_config', 'eth_capabilities',
  'txpool_status', 'txpool_content', 'txpool_contentFrom', 'txpool_inspect',
  'debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts', 'debug_getRawTransaction',
  'debug_traceCall', 'debug_traceTransaction', 'debug_traceBlockByNumber', 'debug_traceBlockByHash',
  'testing_buildBlockV1',
  'evm_mine', 'evm_snapshot', 'anvil_snapshot', 'evm_revert', 'anvil_revert',
  'evm_increaseTime', 'evm_setNextBlockTimestamp', 'anvil_setTime', 'evm_setTime',
  'anvil_setBlockTimestampInterval', 'hardhat_setBlockTimestampInterval',
  'anvil_removeBlockTimestampInterval', 'hardhat_removeBlockTimestampInterval',
  'anvil_setBalance', 'hardhat_setBalance', 'evm_setAccountBalance',
  'anvil_setCode', 'hardhat_setCode', 'evm_setAccountCode',
  'anvil_setNonce', 'hardhat_setNonce', 'evm_setAccountNonce',
  'anvil_setStorageAt', 'hardhat_setStorageAt', 'evm_setAccountStorageAt',
  'anvil_impersonateAccount', 'hardhat_impersonateAccount',
  'anvil_stopImpersonatingAccount', 'hardhat_stopImpersonatingAccount',
  'anvil_autoImpersonateAccount', 'hardhat_autoImpersonateAccount',
  'evm_setAutomine', 'anvil_setAutomine', 'hardhat_setAutomine', 'anvil_getAutomine', 'hardhat_getAutomine',
  'evm_setIntervalMining', 'anvil_setIntervalMining', 'anvil_mine', 'hardhat_mine',
  'anvil_dropTransaction', 'hardhat_dropTransaction', 'anvil_dropAllTransactions', 'hardhat_dropAllTransactions',
  'anvil_removePoolTransactions', 'evm_setBlockGasLimit',
  'anvil_setNextBlockBaseFeePerGas', 'hardhat_setNextBlockBaseFeePerGas',
  'anvil_setCoinbase', 'hardhat_setCoinbase', 'anvil_setMinGasPrice', 'hardhat_setMinGasPrice',
  'anvil_setLoggingEnabled', 'hardhat_setLoggingEnabled', 'anvil_reset', 'hardhat_reset',
  'anvil_setRpcUrl', 'hardhat_setRpcUrl', 'anvil_reorg', 'anvil_rollback',
  'devnet_seal', 'devnet_preconfirm', 'devnet_status', 'devnet_memory', 'devnet_reorg', 'devnet_dropPreconfirmed',
  'devnet_setTokenBalance', 'devnet_setTokenPaused', 'devnet_setTokenBlacklisted',
  'devnet_dumpFixture', 'devnet_loadFixture', 'devnet_checkAuthorization',
] as const satisfies readonly DevnetMethod[]

/**
 * The engine's one entry: everything code outside src/evm uses of the EVM,
 * state, trie, block and tx libraries (@ethereumjs) and of devnet's engine
 * built on them, exported from here. Code outside src/evm imports values only
 * from this file (test/architecture.test.ts; type-only imports of the
 * engine's type modules are allowed), so that:
 * - an @ethereumjs upgrade is reviewed in this folder: what the node sees of
 *   the library is this list, the rest of src/evm is the engine and its
 *   patches (src/evm/patches/registry.ts);
 * - the package's build can make the engine private: scripts/build.mjs
 *   bundles this file, @ethereumjs inlined, into dist/evm/engine.js, which is
 *   the only engine file the rest of dist/ loads. devnet's patches then
 *   change devnet's own copy of @ethereumjs, never the host application's
 *   (test/engine/isolation.test.ts).
 */

// @ethereumjs: the library types, constructors and byte helpers the node uses.
export { Block, createBlock, createBlockFromRLP, createBlockHeaderFromRPC } from '@ethereumjs/block'
export { type Common, Mainnet, type StateManagerInterface } from '@ethereumjs/common'
export type { EVMInterface } from '@ethereumjs/evm'
export { RLP } from '@ethereumjs/rlp'
export { type MerkleStateManager, getMerkleStateProof } from '@ethereumjs/statemanager'
export { TransactionType, type TypedTransaction, createTx, createTxFromRLP } from '@ethereumjs/tx'
export {
  Account,
  type Address,
  KECCAK256_NULL,
  KECCAK256_RLP,
  KECCAK256_RLP_S,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  bytesToHex,
  bytesToUnprefixedHex,
  concatBytes,
  createAddressFromString,
  equalsBytes,
  hexToBytes,
  setLengthLeft,
  unpadBytes,
} from '@ethereumjs/util'
export {
  type AfterTxEvent,
  BlockBuilder,
  Bloom,
  BuildStatus,
  type RunTxResult,
  type VM,
  encodeReceipt,
  runBlock,
  runTx,
} from '@ethereumjs/vm'

// The chain's configuration, genesis and predeployed contracts.
export { createDevCommon } from './common.js'
export { createDevGenesis } from './genesis.js'
export { systemContracts } from './systemContracts.js'
export { cachedTokenGenesis } from './tokenGenesisCache.js'
export { cachedPaymentContractsGenesis } from './paymentContractsCache.js'

// State: the state manager, a VM (a state view) at a block, forks of a remote chain, the token's storage slots.
export { type BlockSource, blockchainOf, createCaches, createStateManager, createVmAt } from './vm.js'
export { type ForkSource, attachFork, enableForkState } from './forkState.js'
export { type SlotWrite, maxBalance, setBalanceWrites, setBlacklistedWrites, setPausedWrites } from './tokenSlots.js'
export { flat } from './trieStorage.js'

// Running calls and transactions, building and sealing blocks.
export {
  type BlockEnv,
  type CallOutcome,
  type CallRequest,
  blockFromEnv,
  callBlock,
  createCallTx,
  executeTx,
  freezeCallTx,
  hasFees,
  toEvmLogs,
} from './execute.js'
export type { EvmLog, ExecutedBlock, ExecutedTx } from './types.js'
export { createImpersonatedTx } from './impersonated.js'
export { decodeRawTx } from './rawTx.js'
export { orderedTrieRoot } from './orderedTrie.js'
export { withIdleRequestQueues } from './idleRequestQueues.js'
export { sealBuiltBlock } from './builderSeal.js'
export { initBlockState } from './systemWrites.js'
export { blockSize } from './blockSize.js'
export { deferFlushToRoot } from './deferredFlush.js'
export { batchFlush } from './batchedFlush.js'
export { patchActive } from './patches/registry.js'
export { keccak256, keccakReady } from './keccak.js'
export { hexOf } from './hexKeys.js'
export { checksumAddress, create2Address, publicKeyAddress } from './address.js'
export { PackedNodeStore, packedKeyOf } from './packedNodeStore.js'
export { NodeTable } from './nodeTable.js'
export { type EngineErrorReason, classifyEngineError } from './engineErrors.js'

// Tracing.
export { type CallTracerConfig, createCallTracer } from './callTracer.js'
export { type StructLog, type StructLoggerConfig, createStructLogger } from './structLogger.js'
export { type OpcodeObserver, observeOpcodes } from './opcodeObserver.js'

// Importing a geth chain (genesis.json, an RLP chain file, a forkchoice), loaded on the first import.
export { ChainImportError } from '../errors/chainImport.js'
export type { GethChain } from './geth/genesis.js'
export type { Forkchoice, ImportedBlock } from './geth/importChain.js'
export const loadGethGenesis: typeof import('./geth/genesis.js').loadGethGenesis = async (json) =>
  (await import('./geth/genesis.js')).loadGethGenesis(json)
export const importGethChain: typeof import('./geth/importChain.js').importChain = async (...args) =>
  (await import('./geth/importChain.js')).importChain(...args)
export const readForkchoice = async (json: unknown): Promise<import('./geth/importChain.js').Forkchoice> =>
  (await import('./geth/importChain.js')).readForkchoice(json)

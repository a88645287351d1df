/**
 * The engine's surface for the node: the @ethereumjs types, constructors and
 * byte helpers that code outside src/evm uses, re-exported from here so that
 * @ethereumjs is imported only under src/evm (test/architecture.test.ts). An
 * @ethereumjs upgrade is reviewed in this folder: what the node sees of the
 * library is this list, the rest of src/evm is the engine itself.
 */
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

import { type Block, Block as BlockClass } from '../../evm/engine.js'
import type { MerkleStateManager } from '../../evm/engine.js'
import type { TypedTransaction } from '../../evm/engine.js'
import { type Address as EthAddress, KECCAK256_RLP } from '../../evm/engine.js'
import { type BlockBuilder, type RunTxResult, type VM, encodeReceipt } from '../../evm/engine.js'
import { keccak256 } from 'viem/utils'
import { sealBuiltBlock } from '../../evm/engine.js'
import { withIdleRequestQueues } from '../../evm/engine.js'
import { orderedTrieRoot } from '../../evm/engine.js'

/*
 * Where the simulation needs ethereumjs 10.1 to behave as geth does, and how:
 * each workaround is applied to one VM for one request and undone after it.
 */

const maxUint64 = (1n << 64n) - 1n

/**
 * Seals the block with the builder (withdrawals, EIP-7685 requests, tries,
 * bloom, roots). The builder's `createBlock` would re-create every
 * transaction and refuse a simulated call above Osaka's 2^24 gas (geth's
 * simulated calls skip that check), so the tries are computed from our
 * transactions first and the block is put together around them afterwards.
 */
export async function assemble(
  builder: BlockBuilder,
  internals: { transactions: unknown[] },
  state: MerkleStateManager,
  computeStateRoot: boolean,
): Promise<Block> {
  const txs = internals.transactions as TypedTransaction[]
  // The roots the builder's tries give (item i under RLP(i)), in one synchronous pass instead of a trie put per item.
  const keccak = builder['vm'].common.customCrypto.keccak256 ?? ((data: Uint8Array) => keccak256(data, 'bytes'))
  const results = (builder as unknown as { transactionResults: RunTxResult[] }).transactionResults
  const transactionsTrie = orderedTrieRoot(txs.map((tx) => tx.serialize()), keccak)
  const receiptTrie =
    results.length === 0 ? KECCAK256_RLP : orderedTrieRoot(results.map((r, i) => encodeReceipt(r.receipt, txs[i]!.type)), keccak)
  const stateRoot = computeStateRoot ? () => state.getStateRoot() : new Uint8Array(32)
  const header = await sealBuiltBlock(builder, { transactionsTrie, receiptTrie, stateRoot })
  if (header !== undefined) return new BlockClass(header, txs, [], undefined, { common: header.common })
  Object.assign(builder, { transactionsTrie: async () => transactionsTrie, receiptTrie: async () => receiptTrie })
  internals.transactions = []
  // Empty EIP-7002/7251 queues answer "no requests" without an EVM call, as when sealing (same roots, same requests hash).
  const vm = (builder as unknown as { vm: VM }).vm
  const build = () => withIdleRequestQueues(vm, () => builder.build())
  const built = computeStateRoot ? await build() : await withZeroStateRoot(state, build)
  return new BlockClass(built.block.header, txs, [], built.block.withdrawals, { common: built.block.common })
}

/** The blob base fee calls see: the override (geth puts it in the EVM context only), else the header's. */
export function blobBaseFeeOf(block: Block, override: bigint | undefined): bigint | undefined {
  if (block.header.excessBlobGas === undefined) return undefined
  withBlobBaseFee(block, override)
  return block.header.getBlobGasPrice()
}

export function withBlobBaseFee(block: Block, override: bigint | undefined): Block {
  if (override !== undefined) (block.header as unknown as { getBlobGasPrice(): bigint }).getBlobGasPrice = () => override
  return block
}

/**
 * geth keeps nonces in a uint64 that wraps; ethereumjs counts past 2^64 and
 * would then refuse the sender's next call. Without validation a call from a
 * sender at nonce 2^64-1 runs, and the next one sees nonce 0, as in geth.
 */
export async function wrapNonce(state: MerkleStateManager, address: EthAddress) {
  const account = await state.getAccount(address)
  if (account === undefined || account.nonce <= maxUint64) return
  account.nonce &= maxUint64
  await state.putAccount(address, account)
}

/**
 * Assembles the block without computing its state root, as Base's node does
 * for simulated blocks (reth "disable state root calculation for
 * eth_simulateV1"): the root is 32 zero bytes and the hash follows from that
 * header. Flushing the trie would also break the request's revert.
 */
async function withZeroStateRoot<T>(state: MerkleStateManager, fn: () => Promise<T>): Promise<T> {
  const original = state.getStateRoot
  state.getStateRoot = async () => new Uint8Array(32)
  try {
    return await fn()
  } finally {
    // Assigned back rather than deleted (the prototype's method when there was no own one): a delete would
    // turn the state manager into a dictionary, slowing every later read of its fields.
    state.getStateRoot = original
  }
}

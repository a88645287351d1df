import type { Block } from '../evm/engine.js'
import type { Common } from '../evm/engine.js'
import type { MerkleStateManager } from '../evm/engine.js'
import type { TypedTransaction } from '../evm/engine.js'
import { createAddressFromString, hexToBytes } from '../evm/engine.js'
import { BlockBuilder, type RunTxResult } from '../evm/engine.js'
import type { Address, Hex } from 'viem'
import { createVmAt } from '../evm/engine.js'
import type { ChainReader, StoredBlock } from './chain.js'
import { InvalidInputError, NonceTooHighError, NonceTooLowError } from './errors.js'

/** The Engine API payload attributes a block is built from. */
export type PayloadAttributes = {
  timestamp: bigint
  prevRandao: Hex
  feeRecipient: Address
  withdrawals?: { index: bigint; validatorIndex: bigint; address: Address; amount: bigint }[] | undefined
  parentBeaconBlockRoot?: Hex | undefined
}

/** A built block, not added to the chain, and what the block proposer would earn from it. */
export type BuiltPayload = {
  block: Block
  /** Priority fees paid to the fee recipient (Engine API `blockValue`). */
  value: bigint
  /** EIP-7685 requests with their type byte, empty ones left out (Engine API `executionRequests`). */
  requests: Hex[]
}

/**
 * geth's `CalcGasLimit`: the gas limit moves from the parent's toward the
 * desired one by at most parent/1024 - 1 per block.
 */
export function nextGasLimit(parent: bigint, desired: bigint): bigint {
  const delta = parent / 1024n - 1n
  if (parent < desired) return parent + delta < desired ? parent + delta : desired
  if (parent > desired) return parent - delta > desired ? parent - delta : desired
  return parent
}

/**
 * Builds a block on `parent` from `txs` as a block producer would
 * (testing_buildBlockV1): the attributes give timestamp, fee recipient,
 * prevRandao, withdrawals and beacon root; system calls, base fee, blob gas
 * and requests follow the fork. It runs on a VM of its own, so neither the
 * chain nor the pre-confirmed state changes.
 *
 * @throws NonceTooLowError / NonceTooHighError (geth's words) or InvalidInputError
 *   when a transaction cannot be included.
 */
export async function buildPayload(
  args: { common: Common; state: MerkleStateManager; chain: ChainReader },
  parent: StoredBlock,
  attributes: PayloadAttributes,
  txs: TypedTransaction[],
  options: { extraData: Hex; desiredGasLimit: bigint },
): Promise<BuiltPayload> {
  if (attributes.timestamp <= parent.block.header.timestamp)
    throw new InvalidInputError(`invalid timestamp: ${attributes.timestamp} is not after the parent's ${parent.block.header.timestamp}`)
  const vm = await createVmAt(args.common, args.state, parent.stateRoot, args.chain)
  vm.common.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: attributes.timestamp })
  const builder = new BlockBuilder(vm, {
    parentBlock: parent.block,
    headerData: {
      number: parent.number + 1n,
      timestamp: attributes.timestamp,
      coinbase: hexToBytes(attributes.feeRecipient),
      gasLimit: nextGasLimit(parent.block.header.gasLimit, options.desiredGasLimit),
      extraData: hexToBytes(options.extraData),
      mixHash: hexToBytes(attributes.prevRandao),
      difficulty: 0n,
      nonce: new Uint8Array(8),
      ...(attributes.parentBeaconBlockRoot ? { parentBeaconBlockRoot: hexToBytes(attributes.parentBeaconBlockRoot) } : {}),
    },
    ...(vm.common.isActivatedEIP(4895)
      ? { withdrawals: (attributes.withdrawals ?? []).map((w) => ({ ...w, address: createAddressFromString(w.address) })) }
      : {}),
    blockOpts: { putBlockIntoBlockchain: false, setHardfork: true, skipConsensusFormatValidation: true, common: vm.common } as never,
  })
  await builder.initState()
  const baseFee = (builder as unknown as { headerData: { baseFeePerGas?: bigint } }).headerData.baseFeePerGas ?? 0n
  let value = 0n
  for (const tx of txs) {
    const from = tx.getSenderAddress()
    const nonce = (await vm.stateManager.getAccount(from))?.nonce ?? 0n
    if (tx.nonce > nonce) throw new NonceTooHighError(from.toString(), nonce, tx.nonce)
    if (tx.nonce < nonce) throw new NonceTooLowError(from.toString(), nonce, tx.nonce)
    let result: RunTxResult
    try {
      result = await builder.addTransaction(tx, { skipHardForkValidation: true, allowNoBlobs: true })
    } catch (error) {
      throw new InvalidInputError((error as Error).message.split(' (')[0]!)
    }
    const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
    const tipCap = 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : feeCap
    const tip = tipCap < feeCap - baseFee ? tipCap : feeCap - baseFee
    value += result.totalGasSpent * tip
  }
  const { block, requests } = await builder.build()
  return {
    block,
    value,
    requests: (requests ?? [])
      .filter((r) => r.bytes.length > 1)
      .map((r) => `0x${Buffer.from(r.bytes).toString('hex')}` as Hex),
  }
}

import { type Block, createBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import {
  Account,
  KECCAK256_RLP,
  createAddressFromString,
  hexToBytes,
} from '@ethereumjs/util'
import { sha256 } from 'viem/utils'
import type { Address, Hex } from 'viem'

/** One account to place in the genesis state. */
export type GenesisAccount = {
  address: Address
  balance?: bigint | undefined
  nonce?: bigint | undefined
  code?: Hex | undefined
  storage?: [slot: Hex, value: Hex][] | undefined
}

export type GenesisOptions = {
  timestamp: bigint
  gasLimit: bigint
  baseFee: bigint
  extraData: Hex
  alloc: GenesisAccount[]
}

/** Writes `alloc` into an empty state. Accounts are written in address order so the trie is the same every run. */
export async function writeAlloc(state: MerkleStateManager, alloc: GenesisAccount[]) {
  const sorted = [...alloc].sort((a, b) =>
    a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1,
  )
  for (const entry of sorted) {
    const address = createAddressFromString(entry.address)
    const account = (await state.getAccount(address)) ?? new Account()
    if (entry.balance !== undefined) account.balance = entry.balance
    if (entry.nonce !== undefined) account.nonce = entry.nonce
    await state.putAccount(address, account)
    if (entry.code && entry.code !== '0x') await state.putCode(address, hexToBytes(entry.code))
    for (const [slot, value] of entry.storage ?? [])
      await state.putStorage(address, hexToBytes(slot), hexToBytes(value))
  }
}

/**
 * Builds the dev chain's genesis: state from `alloc`, header with every field
 * the active forks require (base fee, withdrawals root, blob gas, beacon root,
 * requests hash), so block 1 validates like any other block.
 */
export async function createDevGenesis(
  common: Common,
  state: MerkleStateManager,
  options: GenesisOptions,
): Promise<Block> {
  await writeAlloc(state, options.alloc)
  const stateRoot = await state.getStateRoot()
  const header: Record<string, unknown> = {
    number: 0n,
    timestamp: options.timestamp,
    gasLimit: options.gasLimit,
    extraData: hexToBytes(options.extraData),
    stateRoot,
    difficulty: 0n,
    nonce: new Uint8Array(8),
  }
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = options.baseFee
  if (common.isActivatedEIP(4895)) header.withdrawalsRoot = KECCAK256_RLP
  if (common.isActivatedEIP(4844)) {
    header.blobGasUsed = 0n
    header.excessBlobGas = 0n
  }
  if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32)
  // An empty requests list hashes to sha256 of nothing (EIP-7685).
  if (common.isActivatedEIP(7685)) header.requestsHash = sha256(new Uint8Array(), 'bytes')
  return createBlock(
    { header, ...(common.isActivatedEIP(4895) ? { withdrawals: [] } : {}) },
    { common, setHardfork: false, skipConsensusFormatValidation: true },
  )
}

import { type Block, type BlockOptions, type HeaderData, genRequestsRoot } from '@ethereumjs/block'
import { ConsensusType, Mainnet } from '@ethereumjs/common'
import { hexToBytes } from '@ethereumjs/util'
import { type BlockBuilder, Bloom, type RunTxResult, type VM } from '@ethereumjs/vm'
import { sha256 } from 'viem/utils'
import { headerFromData } from './headerFields.js'
import { requestQueuesIdle } from './idleRequestQueues.js'
import { patchActive } from './patches/registry.js'

/**
 * BlockBuilder.build for a block whose transactions devnet ran itself and
 * whose tries it has already computed (eth_simulateV1's blocks): the header
 * build() would make, made once, without the EIP-7685 request accumulation's
 * system calls when they provably yield nothing.
 *
 * build() accumulates the EIP-7685 requests by scanning every receipt for
 * deposit logs and calling the EIP-7002 and EIP-7251 queue contracts (each a
 * system call: account reads, address parsing, parameter lookups, the
 * idle-queue check, the system account put back), then creates the block
 * through createBlock, whose header the caller wraps in a second Block: about
 * a third of a one-call simulation. When no receipt carries a deposit log and
 * both queues are idle (idleRequestQueues.ts: the contracts' code with all
 * four queue slots zero, or no contract at all), every request is empty, so
 * the requests hash is genRequestsRoot of nothing, and the system calls would
 * have left the state as it was (the system account is put back to what it
 * was read as). The header is then build()'s: the builder's header data with
 * the same roots, bloom (the receipts' blooms OR-ed), gas and blob gas.
 *
 * Anything else returns undefined and the caller runs build(): proof of work
 * (miner reward) or a clique signer, withdrawals to credit, EIP-7928 block
 * access lists, EIP-8282 builder requests, a deposit log, a queued request.
 */
export async function sealBuiltBlock(
  builder: BlockBuilder,
  /** The state root as bytes when the caller knows it without a flush (eth_simulateV1's zero root), else how to get it. */
  roots: { transactionsTrie: Uint8Array; receiptTrie: Uint8Array; stateRoot: Uint8Array | (() => Promise<Uint8Array>) },
): Promise<Block['header'] | undefined> {
  if (!patchActive('builder-seal')) return undefined
  const internals = builder as unknown as Internals
  const { vm } = internals
  const common = vm.common
  if (common.consensusType() !== ConsensusType.ProofOfStake || internals.blockOpts.cliqueSigner !== undefined) return undefined
  if (internals.withdrawals !== undefined || common.isActivatedEIP(7928) || common.isActivatedEIP(8282)) return undefined
  const results = internals.transactionResults
  let requestsHash: Uint8Array | undefined
  if (common.isActivatedEIP(7685)) {
    if (common.isActivatedEIP(6110) && hasDepositLog(common, results)) return undefined
    const idle = requestQueuesIdle(vm)
    if (!(idle === true || (idle !== false && (await idle)))) return undefined
    requestsHash = emptyRequestsHash(common.customCrypto.sha256)
  }
  const logsBloom = new Bloom(undefined, common)
  for (const result of results) logsBloom.or(result.bloom)
  const data = internals.headerData
  // Every field the header reads, written out: the builder's data with the roots, bloom and gas. Not a spread of the
  // builder's data with these fields after it (the same header): V8 then builds the object's shape anew each time,
  // ~10 µs of a simulated block.
  const headerData: HeaderData = {
    parentHash: data.parentHash,
    uncleHash: data.uncleHash,
    coinbase: data.coinbase,
    stateRoot: roots.stateRoot instanceof Uint8Array ? roots.stateRoot : await roots.stateRoot(),
    transactionsTrie: roots.transactionsTrie,
    receiptTrie: roots.receiptTrie,
    logsBloom: logsBloom.bitvector,
    difficulty: data.difficulty,
    number: data.number,
    gasLimit: data.gasLimit,
    gasUsed: internals.gasUsed,
    timestamp: data.timestamp ?? 0n,
    extraData: data.extraData,
    mixHash: data.mixHash,
    nonce: data.nonce,
    baseFeePerGas: data.baseFeePerGas,
    withdrawalsRoot: undefined,
    blobGasUsed: common.isActivatedEIP(4844) ? internals.blobGasUsed : undefined,
    excessBlobGas: data.excessBlobGas,
    parentBeaconBlockRoot: data.parentBeaconBlockRoot,
    requestsHash,
    blockAccessListHash: data.blockAccessListHash,
    slotNumber: data.slotNumber,
  }
  return headerFromData(headerData, internals.blockOpts)
}

/** genRequestsRoot of no requests (the sha256 of nothing), once per hash function: it is the same for every block. */
const emptyRequestsHashes = new Map<((data: Uint8Array) => Uint8Array) | undefined, Uint8Array>()
function emptyRequestsHash(custom: ((data: Uint8Array) => Uint8Array) | undefined): Uint8Array {
  let hash = emptyRequestsHashes.get(custom)
  if (hash === undefined) {
    hash = genRequestsRoot([], custom ?? ((data: Uint8Array) => sha256(data, 'bytes')))
    emptyRequestsHashes.set(custom, hash)
  }
  // A copy: the header keeps what it is given, and a caller must not be able to change the next block's.
  return hash.slice()
}

type Internals = {
  vm: VM
  blockOpts: BlockOptions & { cliqueSigner?: unknown }
  headerData: HeaderData
  withdrawals: unknown[] | undefined
  transactionResults: Pick<RunTxResult, 'receipt' | 'bloom'>[]
  gasUsed: bigint
  blobGasUsed: bigint
}

const depositTopic = hexToBytes('0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5')

/** Whether two byte arrays hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Whether any receipt holds a log that accumulateRequests would parse as a deposit (EIP-6110). Compared as bytes:
 * the hex of every log's first topic was a few percent of a warm one-call eth_simulateV1.
 */
function hasDepositLog(common: VM['common'], results: Internals['transactionResults']): boolean {
  const configured = (common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams.depositContractAddress
  const contract = configured ?? Mainnet.depositContractAddress
  // No address: accumulateRequests throws, so build() must run to say so.
  if (contract === undefined) return true
  let contractBytes: Uint8Array | undefined
  for (const { receipt } of results)
    for (const [address, topics] of receipt.logs) {
      if (topics.length === 0 || !sameBytes(topics[0]!, depositTopic)) continue
      // A configured address that is not 20 bytes of hex names no log's address (its hex never equalled one).
      if (!/^0x[0-9a-fA-F]{40}$/.test(contract)) continue
      contractBytes ??= hexToBytes(contract as `0x${string}`)
      if (sameBytes(address, contractBytes)) return true
    }
  return false
}

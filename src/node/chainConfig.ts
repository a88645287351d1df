import { createRequire } from 'node:module'
import type * as zlibModule from 'node:zlib'
import { type Common, Mainnet, hexToBytes } from '../evm/engine.js'
import type { Node } from './node.js'

const q = (n: bigint | number) => `0x${n.toString(16)}` as `0x${string}`

/**
 * eth_config's description of the chain (EIP-7910): the fork at the head
 * (`current`), the next scheduled and the last scheduled one (null when none
 * is ahead), read from the engine's chain parameters (moved from
 * rpc/methods/config.ts, which now only encodes it).
 */
export function describeChainConfig(node: Node) {
  const head = node.chain.head().block.header
  const forks = timedForks(node.common)
  const currentIndex = forks.findLastIndex((f) => f.timestamp <= head.timestamp)
  const describe = (index: number) => (index < 0 ? null : forkConfig(node, forks, index))
  const ahead = forks.length - 1 > currentIndex
  return {
    current: currentIndex < 0 ? forkConfig(node, [], -1) : describe(currentIndex),
    next: ahead ? describe(currentIndex + 1) : null,
    last: ahead ? describe(forks.length - 1) : null,
  }
}

/**
 * The blob base fee for an excess blob gas under `common`'s fork (EIP-4844's
 * fake exponential; the update fraction changes with Prague and each BPO fork).
 */
export function blobBaseFee(excess: bigint, common: Common): bigint {
  // @ethereumjs/block computes this too but does not export it
  const fraction = common.param('blobGasPriceUpdateFraction')
  let i = 1n
  let output = 0n
  let accum = common.param('minBlobGas') * fraction
  while (accum > 0n) {
    output += accum
    accum = (accum * excess) / (fraction * i)
    i++
  }
  return output / fraction
}

type TimedFork = { name: string; timestamp: bigint }

/**
 * The forks scheduled by timestamp, in order, merging forks that share one
 * (geth's config describes the last of them). eth_config is about these:
 * every fork since the merge activates by time.
 */
function timedForks(common: Common): TimedFork[] {
  const out: TimedFork[] = []
  for (const hf of common.hardforks()) {
    if (hf.timestamp == null) continue
    const timestamp = BigInt(hf.timestamp)
    if (out.length > 0 && out[out.length - 1]!.timestamp === timestamp) out[out.length - 1] = { name: hf.name, timestamp }
    else out.push({ name: hf.name, timestamp })
  }
  return out
}

/** One fork's EIP-7910 description; `index` -1 describes the chain's block-numbered fork at its head. */
function forkConfig(node: Node, forks: TimedFork[], index: number) {
  const fork = forks[index]
  const common = node.common.copy()
  if (fork) common.setHardfork(fork.name)
  const blobs = blobSchedule(common)
  return {
    activationTime: Number(fork?.timestamp ?? 0n),
    ...(blobs ? { blobSchedule: blobs } : {}),
    chainId: q(common.chainId()),
    forkId: forkHash(node, fork?.timestamp ?? 0n),
    precompiles: precompiles(common),
    systemContracts: systemContracts(common),
  }
}

/** Target and max blobs per block and the update fraction, from the fork's params; undefined before Cancun. */
function blobSchedule(common: Common) {
  if (!common.isActivatedEIP(4844)) return undefined
  const { targetBlobGasPerBlock, maxBlobGasPerBlock, blobGasPriceUpdateFraction } = common.getBlobGasSchedule()
  const perBlob = common.param('blobGasPerBlob')
  return {
    target: Number(targetBlobGasPerBlock / perBlob),
    max: Number(maxBlobGasPerBlock / perBlob),
    baseFeeUpdateFraction: Number(blobGasPriceUpdateFraction),
  }
}

/**
 * EIP-2124 fork hash of the fork active at `timestamp`: CRC32 of the genesis
 * hash, updated with each fork block number and then each fork timestamp
 * (8 bytes, big-endian) that is active by then, skipping those at genesis and
 * repeats, as geth's `forkid.NewID` does.
 */
function forkHash(node: Node, timestamp: bigint): string {
  // node:zlib is required here, at the first eth_config, not with the module (part of every start; ~1 ms to load).
  const { crc32 } = createRequire(import.meta.url)('node:zlib') as typeof zlibModule
  const genesis = node.chain.genesis().block.header
  let hash = crc32(hexToBytes(node.chain.genesis().hash))
  const points = new Set<bigint>()
  const add = (value: bigint) => {
    if (points.has(value)) return
    points.add(value)
    const bytes = Buffer.alloc(8)
    bytes.writeBigUInt64BE(value)
    hash = crc32(bytes, hash)
  }
  const hardforks = node.common.hardforks()
  for (const hf of hardforks)
    if (hf.block != null && BigInt(hf.block) > 0n && hf.timestamp == null) add(BigInt(hf.block))
  for (const hf of hardforks) {
    if (hf.timestamp == null) continue
    const at = BigInt(hf.timestamp)
    if (at > genesis.timestamp && at <= timestamp) add(at)
  }
  return `0x${hash.toString(16).padStart(8, '0')}`
}

/** geth's precompile names (core/vm/contracts.go) with the EIP that brings each. */
const precompileTable: { name: string; address: number; eip?: number }[] = [
  { name: 'ECREC', address: 0x01 },
  { name: 'SHA256', address: 0x02 },
  { name: 'RIPEMD160', address: 0x03 },
  { name: 'ID', address: 0x04 },
  { name: 'MODEXP', address: 0x05, eip: 198 },
  { name: 'BN254_ADD', address: 0x06, eip: 196 },
  { name: 'BN254_MUL', address: 0x07, eip: 196 },
  { name: 'BN254_PAIRING', address: 0x08, eip: 197 },
  { name: 'BLAKE2F', address: 0x09, eip: 152 },
  { name: 'KZG_POINT_EVALUATION', address: 0x0a, eip: 4844 },
  { name: 'BLS12_G1ADD', address: 0x0b, eip: 2537 },
  { name: 'BLS12_G1MSM', address: 0x0c, eip: 2537 },
  { name: 'BLS12_G2ADD', address: 0x0d, eip: 2537 },
  { name: 'BLS12_G2MSM', address: 0x0e, eip: 2537 },
  { name: 'BLS12_PAIRING_CHECK', address: 0x0f, eip: 2537 },
  { name: 'BLS12_MAP_FP_TO_G1', address: 0x10, eip: 2537 },
  { name: 'BLS12_MAP_FP2_TO_G2', address: 0x11, eip: 2537 },
  { name: 'P256VERIFY', address: 0x100, eip: 7951 },
]

/** Byzantium's precompiles: ethereumjs activates them with the hardfork rather than as EIPs. */
const byzantiumEips = new Set([196, 197, 198])

function precompiles(common: Common): Record<string, string> {
  const out: Record<string, string> = {}
  for (const { name, address, eip } of precompileTable) {
    const active =
      eip === undefined ||
      (byzantiumEips.has(eip) ? common.gteHardfork('byzantium') : eip === 152 ? common.gteHardfork('istanbul') : common.isActivatedEIP(eip))
    if (active) out[name] = `0x${address.toString(16).padStart(40, '0')}`
  }
  return out
}

/** The system contracts of a fork, named as geth's eth_config names them. */
function systemContracts(common: Common): Record<string, string> {
  const out: Record<string, string> = {}
  if (common.isActivatedEIP(4788)) out.BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
  if (common.isActivatedEIP(7685)) {
    out.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = '0x0000bbddc7ce488642fb579f8b00f3a590007251'
    // the address ethereumjs takes deposit requests from (vm/requests.ts reads the same field)
    const chainParams = (common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams
    out.DEPOSIT_CONTRACT_ADDRESS = (chainParams.depositContractAddress ?? Mainnet.depositContractAddress!).toLowerCase()
    out.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = '0x00000961ef480eb55e80d19ad83579a64c007002'
  }
  if (common.isActivatedEIP(2935)) out.HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935'
  return out
}

import { BlockHeader, type BlockOptions, type HeaderData, createBlockHeader, paramsBlock } from '@ethereumjs/block'
import { Address, KECCAK256_RLP, KECCAK256_RLP_ARRAY, TypeOutput, toType } from '@ethereumjs/util'
import { patchActive } from './patches/registry.js'

/*
 * The header of a block devnet seals itself (a simulated block, a block of
 * the pre-confirmed layer), built without the constructor's conversions.
 * `new BlockHeader` passes every field through toType: a Uint8Array is
 * copied with Uint8Array.from (element by element), a bigint is written as
 * hex, parsed into bytes and read back into a bigint. For a header whose
 * fields are already bigints and bytes that was ~20 µs, two thirds of the
 * header's cost, at every simulated block (in-process microbenchmark).
 */

/**
 * toType(v, Uint8Array): a copy of bytes as a plain Uint8Array (what Uint8Array.from gives), anything else through
 * the library. A longer array (a logs bloom) is allocated and set: V8's constructor copies one of 256 bytes element
 * by element (~2 µs against ~1.4).
 */
const bytes = (v: unknown): Uint8Array | null | undefined => {
  if (!(v instanceof Uint8Array)) return toType(v as Uint8Array | null | undefined, TypeOutput.Uint8Array)
  if (v.length <= 64) return new Uint8Array(v)
  const copy = new Uint8Array(v.length)
  copy.set(v)
  return copy
}
/** toType(v, BigInt): a bigint the library would accept is itself (its bytes read back are the same value). */
const big = (v: unknown): bigint | null | undefined =>
  typeof v === 'bigint' && v >= 0n ? v : toType(v as bigint | null | undefined, TypeOutput.BigInt)

/** The fields every header has and the EIP that brings each of the others (present exactly when it is active). */
const baseFields = [
  'parentHash', 'coinbase', 'stateRoot', 'transactionsTrie', 'receiptTrie', 'logsBloom', 'difficulty', 'number',
  'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce',
] as const
const eipFields = [
  [1559, 'baseFeePerGas'],
  [4844, 'blobGasUsed'],
  [4844, 'excessBlobGas'],
  [4788, 'parentBeaconBlockRoot'],
  [7685, 'requestsHash'],
] as const

/**
 * `createBlockHeader(data, opts)`, the same header: the same prototype, own
 * fields in the same order with the same values (bytes copied, the
 * library's constants where it uses its defaults), a copy of the Common with
 * the block parameters merged as the constructor merges them, the
 * constructor's own validation methods run on it, frozen as it freezes.
 *
 * Only for data the constructor would convert without a choice: every base
 * field given, each EIP field given exactly when its EIP is active (so no
 * default and no "can only be provided with EIP…" refusal is involved), no
 * withdrawals root but the default of an EIP-4895 header, no EIP-7928 or
 * EIP-7843 header, no hardfork set from the header, no difficulty computed,
 * the Common's own keccak. Anything else goes to the library.
 */
export function headerFromData(data: HeaderData, opts: BlockOptions): BlockHeader {
  const common = opts.common
  const given = data as Record<string, unknown>
  if (
    !patchActive('header-fields') ||
    common === undefined ||
    opts.setHardfork === true ||
    opts.calcDifficultyFromHeader !== undefined ||
    common.customCrypto.keccak256 === undefined ||
    common.isActivatedEIP(7928) ||
    common.isActivatedEIP(7843) ||
    given.uncleHash != null ||
    given.withdrawalsRoot != null ||
    given.blockAccessListHash != null ||
    given.slotNumber != null ||
    baseFields.some((field) => given[field] == null) ||
    eipFields.some(([eip, field]) => common.isActivatedEIP(eip) !== (given[field] != null))
  )
    return createBlockHeader(data, opts)

  const header = Object.create(BlockHeader.prototype) as Record<string, unknown> & {
    _genericFormatValidation(): void
    _validateDAOExtraData(): void
    _consensusFormatValidation(): void
  }
  header.cache = { hash: undefined }
  const own = common.copy()
  header.common = own
  own.updateParams(opts.params ?? paramsBlock)
  header.keccakFunction = own.customCrypto.keccak256
  // Converted in the constructor's order, so that a field it would refuse is refused first here too.
  const parentHash = bytes(data.parentHash)
  const coinbase = new Address(bytes(data.coinbase)!)
  const stateRoot = bytes(data.stateRoot)
  const transactionsTrie = bytes(data.transactionsTrie)
  const receiptTrie = bytes(data.receiptTrie)
  const logsBloom = bytes(data.logsBloom)
  const difficulty = big(data.difficulty)
  const number = big(data.number)
  const gasLimit = big(data.gasLimit)
  const gasUsed = big(data.gasUsed)
  const timestamp = big(data.timestamp)
  const extraData = bytes(data.extraData)
  const mixHash = bytes(data.mixHash)
  const nonce = bytes(data.nonce)
  const baseFeePerGas = big(data.baseFeePerGas)
  const blobGasUsed = big(data.blobGasUsed)
  const excessBlobGas = big(data.excessBlobGas)
  const parentBeaconBlockRoot = bytes(data.parentBeaconBlockRoot)
  const requestsHash = bytes(data.requestsHash)
  header.parentHash = parentHash
  header.uncleHash = KECCAK256_RLP_ARRAY
  header.coinbase = coinbase
  header.stateRoot = stateRoot
  header.transactionsTrie = transactionsTrie
  header.receiptTrie = receiptTrie
  header.logsBloom = logsBloom
  header.difficulty = difficulty
  header.number = number
  header.gasLimit = gasLimit
  header.gasUsed = gasUsed
  header.timestamp = timestamp
  header.extraData = extraData
  header.mixHash = mixHash
  header.nonce = nonce
  header.baseFeePerGas = baseFeePerGas ?? undefined
  header.withdrawalsRoot = own.isActivatedEIP(4895) ? KECCAK256_RLP : undefined
  header.blobGasUsed = blobGasUsed ?? undefined
  header.excessBlobGas = excessBlobGas ?? undefined
  header.parentBeaconBlockRoot = parentBeaconBlockRoot ?? undefined
  header.requestsHash = requestsHash ?? undefined
  header.blockAccessListHash = undefined
  header.slotNumber = undefined
  header._genericFormatValidation()
  header._validateDAOExtraData()
  if (opts.skipConsensusFormatValidation !== true) header._consensusFormatValidation()
  if (opts.freeze ?? true) Object.freeze(header)
  return header as unknown as BlockHeader
}

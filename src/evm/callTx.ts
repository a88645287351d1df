import type { Common } from '@ethereumjs/common'
import { FeeMarket1559Tx, paramsTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { byteLength, itemLength, writeInteger } from './accountCodec.js'
import { patchActive } from './patches/registry.js'
import { prefixSize, writePrefix } from './rlpEncode.js'

/**
 * The EIP-1559 transaction an eth_call runs, built without the library
 * constructor. `new FeeMarket1559Tx` turns every bigint field into bytes and
 * back (a hex string and a regular expression each), validates the data
 * object's shape and checks every bound one field at a time: ~10 % of a token
 * balanceOf call's CPU, for fields a call request already holds as bigints
 * and bytes.
 *
 * This builds the same object (same prototype, same own fields in the same
 * order, a copy of `common` as the library makes) when every check the
 * constructor would make passes trivially; otherwise it returns undefined and
 * the caller uses the library, which then throws its own error. Calls with an
 * access list or without a recipient always take the library path.
 */
export type CallTxFields = {
  nonce: bigint
  gasLimit: bigint
  to: Uint8Array | undefined
  value: bigint
  data: Uint8Array
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

const MAX_UINT64 = (1n << 64n) - 1n
const MAX_UINT256 = (1n << 256n) - 1n
const prototype = FeeMarket1559Tx.prototype as object

export function fastCallTx1559(
  fields: CallTxFields,
  options: { common: Common; freeze?: boolean; allowUnlimitedInitCodeSize?: boolean },
): FeeMarket1559Tx | undefined {
  const { nonce, gasLimit, to, value, data, maxFeePerGas, maxPriorityFeePerGas } = fields
  if (!patchActive('call-tx') || to === undefined || to.length !== 20) return undefined
  // The constructor's bounds: value and fees 256 bits, gas limit 64 bits, nonce below 2^64-1 (EIP-2681).
  if (nonce < 0n || nonce >= MAX_UINT64) return undefined
  if (gasLimit < 0n || gasLimit > MAX_UINT64) return undefined
  if (value < 0n || value > MAX_UINT256) return undefined
  if (maxFeePerGas < 0n || maxFeePerGas > MAX_UINT256) return undefined
  if (maxPriorityFeePerGas < 0n || maxPriorityFeePerGas > MAX_UINT256) return undefined
  if (gasLimit * maxFeePerGas > MAX_UINT256 || maxFeePerGas < maxPriorityFeePerGas) return undefined
  const common = options.common.copy()
  common.updateParams(paramsTx)
  if (!common.isActivatedEIP(1559)) return undefined
  // EIP-7825's gas cap (lifted again by EIP-8037), as the constructor checks it.
  if (
    common.isActivatedEIP(7825) &&
    !common.isActivatedEIP(8037) &&
    gasLimit > common.param('maxTransactionGasLimit')
  )
    return undefined
  const tx = Object.create(prototype) as Record<string, unknown>
  tx.type = 2
  tx.cache = {}
  tx.activeCapabilities = []
  tx.common = common
  tx.txOptions = options
  tx.to = new Address(to)
  tx.nonce = nonce
  tx.gasLimit = gasLimit
  tx.value = value
  tx.data = data
  tx.v = undefined
  tx.r = undefined
  tx.s = undefined
  tx.chainId = common.chainId()
  tx.activeCapabilities = [1559, 2718, 2930]
  tx.accessList = []
  tx.maxFeePerGas = maxFeePerGas
  tx.maxPriorityFeePerGas = maxPriorityFeePerGas
  if (options.freeze ?? true) Object.freeze(tx)
  return tx as unknown as FeeMarket1559Tx
}

/** RLP's size of a byte string of `length` bytes whose first byte is `first`. */
const stringSize = (length: number, first: number) => (length === 1 && first < 0x80 ? 1 : prefixSize(length) + length)

/** RLP's size of an integer written as its minimal bytes (zero: the empty string). */
const integerSize = (value: bigint) => itemLength(value, byteLength(value))

/** Writes an integer as RLP of its minimal big-endian bytes at `at`. */
const writeMinimal = (out: Uint8Array, at: number, value: bigint) => writeInteger(out, at, value, byteLength(value))

/**
 * The EIP-2718 bytes (`0x02 || rlp(fields)`) of an unsigned EIP-1559 call
 * transaction that fastCallTx1559 built: what `tx.serialize()` computes
 * (EIP2718.serialize over `raw()`: each integer as its minimal bytes, the
 * recipient, the data, an empty access list and empty v, r, s), written in
 * one pass into one buffer instead of a dozen small arrays, a bigint-to-hex
 * round trip per integer and an RLP encoder's measuring pass. A simulated
 * call's hash needs it: ~5 % of a 100-call eth_simulateV1 went to the first
 * serialize of each call. Undefined for any other transaction (signed, with
 * an access list, without a recipient), which the library serializes itself.
 */
export function encodeCallTx1559(tx: FeeMarket1559Tx): Uint8Array | undefined {
  if (Object.getPrototypeOf(tx) !== prototype || !patchActive('call-tx')) return undefined
  if (tx.v !== undefined || tx.r !== undefined || tx.s !== undefined || tx.accessList.length !== 0) return undefined
  const to = tx.to?.bytes
  if (to === undefined || to.length !== 20) return undefined
  const { chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, value, data } = tx
  // The recipient (21), the empty access list (1), empty v, r and s (3).
  const payload =
    integerSize(chainId) + integerSize(nonce) + integerSize(maxPriorityFeePerGas) + integerSize(maxFeePerGas) +
    integerSize(gasLimit) + 21 + integerSize(value) + stringSize(data.length, data[0] ?? 0) + 1 + 3
  const out = new Uint8Array(1 + prefixSize(payload) + payload)
  out[0] = 2
  let at = writePrefix(out, 1, payload, 0xc0)
  at = writeMinimal(out, at, chainId)
  at = writeMinimal(out, at, nonce)
  at = writeMinimal(out, at, maxPriorityFeePerGas)
  at = writeMinimal(out, at, maxFeePerGas)
  at = writeMinimal(out, at, gasLimit)
  out[at++] = 0x80 + 20
  out.set(to, at)
  at = writeMinimal(out, at + 20, value)
  if (data.length === 1 && data[0]! < 0x80) out[at++] = data[0]!
  else {
    at = writePrefix(out, at, data.length, 0x80)
    out.set(data, at)
    at += data.length
  }
  out[at] = 0xc0
  out[at + 1] = 0x80
  out[at + 2] = 0x80
  out[at + 3] = 0x80
  return out
}

/**
 * Fills a frozen EIP-1559 call transaction's data-gas cache as the library's
 * first `getDataGas()` would (Legacy.getDataGas: `tx.cache.dataFee`, the
 * calldata's cost at the transaction's hardfork, kept once it is frozen),
 * counted in numbers: the library adds a bigint per calldata byte, a new
 * heap object each, for every simulated call. Nothing for any other
 * transaction, or one whose cache is already filled.
 */
export function primeDataGas(tx: FeeMarket1559Tx): void {
  if (Object.getPrototypeOf(tx) !== prototype || !Object.isFrozen(tx) || tx.to === undefined || !patchActive('call-tx')) return
  const cache = tx.cache as { dataFee?: { value: bigint; hardfork: string } }
  if (cache.dataFee !== undefined) return
  const data = tx.data
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const common = tx.common
  const value = BigInt(zeros) * common.param('txDataZeroGas') + BigInt(data.length - zeros) * common.param('txDataNonZeroGas')
  cache.dataFee = { value, hardfork: common.hardfork() }
}

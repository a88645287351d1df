import type { Common } from '@ethereumjs/common'
import { FeeMarket1559Tx, paramsTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { patchActive } from './patches/registry.js'

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

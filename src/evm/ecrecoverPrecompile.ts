import { EVMError } from '@ethereumjs/evm'
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'

/**
 * The ECRECOVER precompile (0x01) of @ethereumjs/evm 10.1 with the chain's
 * own keccak and no byte-array rebuilding: every EIP-3009 authorization and
 * permit runs it once. The library pads the input through `setLengthRight`,
 * reads `v` through a hex string, hashes the public key with the pure-JS
 * keccak and pads the address with `setLengthLeft`'s array spreads: about
 * half of the precompile's time beside the signature recovery itself.
 *
 * Same gas, same answers: the signer's address as a word, empty output when
 * `v` is not 27 or 28 or recovery fails, out of gas below its cost. Runs the
 * library's where the Common has no custom keccak/ecrecover or a debug logger
 * is attached.
 */

type Opts = {
  data: Uint8Array
  gasLimit: bigint
  common: {
    param(name: string): bigint
    customCrypto: {
      keccak256?: (data: Uint8Array) => Uint8Array
      ecrecover?: (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => Uint8Array
    }
  }
  _debug?: unknown
}
type Precompile = (opts: Opts) => unknown

export function ecrecoverPrecompile(library: Precompile): Precompile {
  return function precompile01(opts: Opts) {
    const { keccak256, ecrecover } = opts.common.customCrypto
    if (keccak256 === undefined || ecrecover === undefined || opts._debug !== undefined) return library(opts)
    const gasUsed = opts.common.param('ecRecoverGas')
    if (opts.gasLimit < gasUsed)
      return { returnValue: new Uint8Array(0), executionGasUsed: opts.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) }
    // setLengthRight(data, 128, { allowTruncate: true }): the first 128 bytes, zero-padded.
    let data = opts.data
    if (data.length !== 128) {
      const padded = new Uint8Array(128)
      padded.set(data.length > 128 ? data.subarray(0, 128) : data)
      data = padded
    }
    // v must be exactly 27 or 28 as a 256-bit word.
    let high = 0
    for (let i = 32; i < 63; i++) high |= data[i]!
    const vByte = data[63]!
    if (high !== 0 || (vByte !== 27 && vByte !== 28)) return { executionGasUsed: gasUsed, returnValue: new Uint8Array() }
    let publicKey: Uint8Array
    try {
      publicKey = ecrecover(data.subarray(0, 32), BigInt(vByte), data.subarray(64, 96), data.subarray(96, 128))
    } catch {
      return { executionGasUsed: gasUsed, returnValue: new Uint8Array(0) }
    }
    if (publicKey.length !== 64) throw EthereumJSErrorWithoutCode('Expected pubKey to be of length 64')
    const address = new Uint8Array(32)
    address.set(keccak256(publicKey).subarray(12), 12)
    return { executionGasUsed: gasUsed, returnValue: address }
  }
}

let applied = false

/** Installs the precompile in the library's tables, before any EVM is created (each EVM picks its set when built). */
export function applyEcrecoverPrecompile() {
  if (applied) return
  applied = true
  const { precompileEntries, precompiles } = evmInternals.precompiles as {
    precompileEntries: { address: string; precompile: Precompile }[]
    precompiles: Record<string, Precompile>
  }
  const address = `${'00'.repeat(19)}01`
  const entry = precompileEntries.find((e) => e.address === address)
  if (!entry) return
  const fast = ecrecoverPrecompile(entry.precompile)
  entry.precompile = fast
  if (precompiles[address]) precompiles[address] = fast
}

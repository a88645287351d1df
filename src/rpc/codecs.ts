import type { Address, Hex } from 'viem'
import type { CallRequest } from '../node/engineTypes.js'
import type { BlockId } from '../node/views.js'
import { InvalidParamsError, invalidArgument } from './errors.js'

/**
 * Decoders from wire values to native ones. Each takes the argument's
 * position so that errors name it the way geth does ("invalid argument 1:
 * hex string without 0x prefix"). Hand-written rather than a schema library
 * because they run on every request and their messages must be geth's.
 */
export class ArgError extends Error {}

const fail = (reason: string): never => {
  throw new ArgError(reason)
}

export const quantity = (value: unknown): bigint => {
  if (typeof value !== 'string') return fail(`cannot unmarshal ${describe(value)} into Go value of type hexutil.Big`)
  if (!value.startsWith('0x') && !value.startsWith('0X')) return fail('hex string without 0x prefix')
  if (value.length === 2) return fail('hex string "0x"')
  if (!/^0[xX][0-9a-fA-F]+$/.test(value)) return fail('invalid hex string')
  if (value.length > 3 && value[2] === '0') return fail('hex number with leading zero digits')
  if (value.length > 66) return fail('hex number > 256 bits')
  return BigInt(value)
}

/** A quantity that must fit 64 bits (block numbers, gas, nonces). */
export const uint64 = (value: unknown): bigint => {
  const n = quantity(value)
  if (n >= 1n << 64n) return fail('hex number > 64 bits')
  return n
}

/**
 * Milliseconds as a JSON number or a hex quantity: eth_sendRawTransactionSync's
 * timeout, which EIP-7966's examples, Base and viem send as a plain number
 * (geth's `*uint64` reads a number too), and which devnet took as hex before.
 */
export const millis = (value: unknown): bigint => {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return fail(`cannot unmarshal number ${value} into Go value of type uint64`)
    return BigInt(value)
  }
  return uint64(value)
}

export const data = (value: unknown): Hex => {
  if (typeof value !== 'string') return fail(`cannot unmarshal ${describe(value)} into Go value of type hexutil.Bytes`)
  if (!value.startsWith('0x')) return fail('hex string without 0x prefix')
  if (value.length % 2 !== 0) return fail('hex string of odd length')
  if (!/^0x[0-9a-fA-F]*$/.test(value)) return fail('invalid hex string')
  return value.toLowerCase() as Hex
}

export const hash = (value: unknown): Hex => {
  const hex = data(value)
  if (hex.length !== 66) return fail(`hex string has length ${hex.length - 2}, want 64 for common.Hash`)
  return hex
}

/**
 * A storage slot as geth's `decodeHash` takes it: any hex of at most 32 bytes,
 * zero-padded or not (`0x0`, `0x00…00`), so both viem's quantity and the
 * 32-byte key other clients send work. Returns the 32-byte key.
 */
export const storageKey = (value: unknown): Hex => {
  if (typeof value !== 'string') return fail(`cannot unmarshal ${describe(value)} into Go value of type string`)
  let digits = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value
  if (digits.length % 2 === 1) digits = `0${digits}`
  // geth words these without the "invalid argument N:" prefix
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new InvalidParamsError(`invalid hex in storage key: ${JSON.stringify(value)}`)
  if (digits.length > 64)
    throw new InvalidParamsError(`storage key too long (want at most 32 bytes): ${JSON.stringify(value)}`)
  return `0x${digits.toLowerCase().padStart(64, '0')}` as Hex
}

/**
 * What viem's isAddress(value, { strict: false }) accepts (its pattern, no checksum check), tested directly: viem
 * looks each answer up in, and adds it to, an LRU cache first, which cost more than the pattern (~1 % of a warm
 * one-call eth_simulateV1, whose payload holds several addresses).
 */
const addressPattern = /^0x[a-fA-F0-9]{40}$/

export const address = (value: unknown): Address => {
  if (typeof value !== 'string') return fail(`cannot unmarshal ${describe(value)} into Go value of type common.Address`)
  if (!value.startsWith('0x')) return fail('hex string without 0x prefix')
  if (!addressPattern.test(value)) return fail(`hex string has length ${value.length - 2}, want 40 for common.Address`)
  return value.toLowerCase() as Address
}

export const bool = (value: unknown): boolean => {
  if (typeof value !== 'boolean') return fail(`cannot unmarshal ${describe(value)} into Go value of type bool`)
  return value
}

function describe(value: unknown) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'object') return 'object'
  return typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : typeof value
}

const tags = new Set(['latest', 'pending', 'safe', 'finalized', 'earliest'])

/** A block parameter: tag, hex number, or EIP-1898 `{blockHash}` / `{blockNumber}`. */
export const blockId = (value: unknown): BlockId => {
  if (typeof value === 'string') {
    if (tags.has(value)) return { tag: value as 'latest' }
    if (value.length === 66) return { hash: hash(value) }
    return { number: uint64(value) }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    if (o.blockHash !== undefined && o.blockNumber !== undefined)
      return fail('cannot specify both BlockHash and BlockNumber, choose one or the other')
    if (o.blockHash !== undefined)
      return { hash: hash(o.blockHash), requireCanonical: o.requireCanonical === true }
    if (o.blockNumber !== undefined) return blockId(o.blockNumber)
  }
  return fail('invalid block number or hash')
}

const list = (value: unknown, name: string): unknown[] => (Array.isArray(value) ? value : fail(`${name}: expected an array`))
const object = (value: unknown, name: string): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : fail(`${name}: expected an object`)

const optional = <T>(fn: (v: unknown) => T) => (value: unknown) => (value === undefined || value === null ? undefined : fn(value))

/** A call object (eth_call, eth_estimateGas, eth_sendTransaction, eth_simulateV1). */
export const callRequest = (value: unknown): CallRequest => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(`cannot unmarshal ${describe(value)} into Go value of type ethapi.TransactionArgs`)
  const o = value as Record<string, unknown>
  const input = optional(data)(o.input)
  const d = optional(data)(o.data)
  if (input !== undefined && d !== undefined && input !== d)
    return fail(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)
  if (o.gasPrice != null && (o.maxFeePerGas != null || o.maxPriorityFeePerGas != null))
    return fail('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  return {
    from: optional(address)(o.from),
    to: o.to === null ? null : optional(address)(o.to),
    gas: optional(uint64)(o.gas),
    gasPrice: optional(quantity)(o.gasPrice),
    maxFeePerGas: optional(quantity)(o.maxFeePerGas),
    maxPriorityFeePerGas: optional(quantity)(o.maxPriorityFeePerGas),
    maxFeePerBlobGas: optional(quantity)(o.maxFeePerBlobGas),
    value: optional(quantity)(o.value),
    data: input ?? d,
    nonce: optional(uint64)(o.nonce),
    accessList: o.accessList == null
      ? undefined
      : list(o.accessList, 'accessList').map((value) => {
          const item = object(value, 'accessList item')
          return { address: address(item.address), storageKeys: item.storageKeys == null ? [] : list(item.storageKeys, 'storageKeys').map(hash) }
        }),
    authorizationList: o.authorizationList == null
      ? undefined
      : list(o.authorizationList, 'authorizationList').map((value) => {
          const a = object(value, 'authorizationList item')
          return {
            chainId: quantity(a.chainId),
            address: address(a.address),
            nonce: uint64(a.nonce),
            yParity: quantity(a.yParity ?? a.v ?? '0x0'),
            r: quantity(a.r),
            s: quantity(a.s),
          }
        }),
    blobVersionedHashes: o.blobVersionedHashes == null ? undefined : list(o.blobVersionedHashes, 'blobVersionedHashes').map(hash),
    type: o.type == null ? undefined : Number(uint64(o.type)),
    chainId: optional(quantity)(o.chainId),
  }
}

/** Decodes positional params with one decoder per position; trailing optional ones may be missing. */
export function decodeParams<T extends unknown[]>(
  params: unknown,
  decoders: { [K in keyof T]: (value: unknown) => T[K] },
  required: number,
): T {
  if (params === undefined || params === null) params = []
  if (!Array.isArray(params)) throw new InvalidParamsError('non-array args')
  if (params.length > decoders.length)
    throw new InvalidParamsError(`too many arguments, want at most ${decoders.length}`)
  const out: unknown[] = []
  for (let i = 0; i < decoders.length; i++) {
    const value = params[i]
    if (value === undefined || (value === null && i >= required)) {
      if (i < required) throw new InvalidParamsError(`missing value for required argument ${i}`)
      out.push(undefined)
      continue
    }
    try {
      out.push(decoders[i]!(value))
    } catch (error) {
      if (error instanceof ArgError) throw invalidArgument(i, error.message)
      throw error
    }
  }
  return out as T
}

export const optionalOf = optional

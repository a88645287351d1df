import type { Hex } from 'viem'
import { padHex } from 'viem/utils'
import { ArgError } from './codecs.js'

/**
 * Decoders for the test-harness methods. Anvil and Hardhat take these
 * numbers as a hex quantity or a JSON number (scripts send both:
 * `evm_increaseTime [120]`, viem sends `"0x78"`), and storage slots with
 * leading zeros, so they are looser than geth's quantities.
 */
const fail = (reason: string): never => {
  throw new ArgError(reason)
}

/** A non-negative integer as a JSON number, a hex string (leading zeros allowed) or a decimal string. */
export const looseUint = (value: unknown): bigint => {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return fail(`expected a non-negative integer, got ${value}`)
    return BigInt(value)
  }
  if (typeof value === 'bigint' && value >= 0n) return value
  if (typeof value !== 'string') return fail(`cannot unmarshal ${typeof value} into a non-negative integer`)
  if (/^0[xX][0-9a-fA-F]{1,64}$/.test(value)) return BigInt(value)
  if (/^[0-9]{1,78}$/.test(value)) return BigInt(value)
  return fail(`invalid number ${JSON.stringify(value)}: want a hex quantity or a non-negative integer`)
}

/** A looseUint that must fit 64 bits (timestamps, counts, intervals). */
export const looseUint64 = (value: unknown): bigint => {
  const n = looseUint(value)
  if (n >= 1n << 64n) return fail('number > 64 bits')
  return n
}

/** A 32-byte word from a hex string of at most 32 bytes, left-padded (storage slots and values). */
export const word = (value: unknown): Hex => {
  if (typeof value === 'number') return padHex(`0x${looseUint(value).toString(16)}`, { size: 32 })
  if (typeof value !== 'string' || !/^0[xX][0-9a-fA-F]*$/.test(value)) return fail('want a 0x-prefixed hex string')
  const digits = value.slice(2).replace(/^0+/, '')
  if (digits.length > 64) return fail('hex string longer than 32 bytes')
  return `0x${digits.padStart(64, '0').toLowerCase()}`
}

/** Any JSON value, decoded later (anvil_reset's options object). */
export const anyValue = (value: unknown): unknown => value

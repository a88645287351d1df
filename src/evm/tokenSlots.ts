import type { Address, Hex } from 'viem'
import { encodeAbiParameters, keccak256, numberToHex } from 'viem/utils'
import { paymentTokenStorageLayout } from '../artifacts/paymentToken.js'

/**
 * Storage slots and word encodings of the payment token, for cheats that
 * write its state directly (`devnet_setTokenBalance`, pause and blacklist
 * toggles). Every slot is read from the solc storage layout in the generated
 * artifact rather than hard-coded, so a layout change in the contract moves
 * these with it (and a removed variable fails at import time).
 *
 * The token packs like USDC FiatTokenV2_2: `balanceAndBlacklistStates[a]` holds
 * the balance in bits 0..254 and the blacklist flag in bit 255, so a balance
 * write must keep bit 255 and a blacklist write must keep the balance.
 */

type Variable = (typeof paymentTokenStorageLayout.storage)[number]

function variable(label: Variable['label']): Variable {
  const found = paymentTokenStorageLayout.storage.find((v) => v.label === label)
  if (!found) throw new Error(`PaymentToken storage layout has no variable "${label}"`)
  return found
}

function slotOf(label: Variable['label']): bigint {
  return BigInt(variable(label).slot)
}

/** A storage word (or slot number) as a 32-byte hex string. */
export function toWord(value: bigint): Hex {
  return numberToHex(value, { size: 32 })
}

/**
 * Slot of `mapping[key]` for a mapping declared at `baseSlot`:
 * `keccak256(pad32(key) ‖ pad32(baseSlot))` (Solidity's rule for value-type keys).
 */
export function mappingSlot(
  key: Address | Hex,
  keyType: 'address' | 'bytes32',
  baseSlot: bigint | Hex,
): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: keyType }, { type: 'uint256' }],
      [key, BigInt(baseSlot)],
    ),
  )
}

/** Bit 255 of a balance word: set when the account is blacklisted. */
export const blacklistBit = 1n << 255n

/** Largest balance a word can hold (`2^255 - 1`, FiatTokenV2_2's limit). */
export const maxBalance = blacklistBit - 1n

/** Slot of `totalSupply_`; a balance cheat adjusts it by the same delta. */
export const totalSupplySlot: Hex = toWord(slotOf('totalSupply_'))

/** Slot holding `pauser` (bytes 0..19) and `paused` (byte {@link pausedOffset}). */
export const pausedSlot: Hex = toWord(slotOf('paused'))

/** Byte offset of `paused` inside {@link pausedSlot}, from the low-order end. */
export const pausedOffset: number = variable('paused').offset

/** Slot of `balanceAndBlacklistStates[holder]` (the balance and the blacklist flag). */
export function balanceSlot(holder: Address): Hex {
  return mappingSlot(holder, 'address', slotOf('balanceAndBlacklistStates'))
}

/** Slot of `allowed[owner][spender]`. */
export function allowanceSlot(owner: Address, spender: Address): Hex {
  const outer = mappingSlot(owner, 'address', slotOf('allowed'))
  return mappingSlot(spender, 'address', outer)
}

/** Slot of `_authorizationStates[authorizer][nonce]` (EIP-3009 used/canceled flag). */
export function authorizationStateSlot(authorizer: Address, nonce: Hex): Hex {
  const outer = mappingSlot(authorizer, 'address', slotOf('_authorizationStates'))
  return mappingSlot(nonce, 'bytes32', outer)
}

/** Slot of `_permitNonces[owner]` (EIP-2612 `nonces(owner)`). */
export function permitNonceSlot(owner: Address): Hex {
  return mappingSlot(owner, 'address', slotOf('_permitNonces'))
}

/** Splits a balance word into the balance and the blacklist flag. */
export function decodeBalanceWord(word: bigint): {
  balance: bigint
  blacklisted: boolean
} {
  return {
    balance: word & maxBalance,
    blacklisted: (word & blacklistBit) !== 0n,
  }
}

/**
 * The balance word with its balance replaced by `units`, keeping the blacklist
 * bit of `current`. Throws if `units` does not fit in 255 bits, since a larger
 * value would silently flip the account to blacklisted (foundry#7137).
 */
export function encodeBalanceWord(current: bigint, units: bigint): bigint {
  if (units < 0n || units > maxBalance)
    throw new RangeError(`token balance out of range [0, 2^255 - 1]: ${units}`)
  return (current & blacklistBit) | units
}

/** The balance word with the blacklist flag set or cleared, keeping the balance. */
export function blacklistWord(current: bigint, blacklisted: boolean): bigint {
  return blacklisted ? current | blacklistBit : current & maxBalance
}

/**
 * The word at {@link pausedSlot} with `paused` set or cleared, keeping `pauser`
 * and any other packed bytes.
 */
export function encodePausedWord(current: bigint, paused: boolean): bigint {
  const shift = BigInt(pausedOffset * 8)
  const cleared = current & ~(0xffn << shift)
  return paused ? cleared | (1n << shift) : cleared
}

/** Whether the word at {@link pausedSlot} says paused. */
export function decodePausedWord(word: bigint): boolean {
  return ((word >> BigInt(pausedOffset * 8)) & 0xffn) !== 0n
}

/** Reads one storage word of the token (as a bigint; 0 when unset). */
export type ReadSlot = (slot: Hex) => Promise<bigint> | bigint

/** One storage write of a cheat: the slot and its new full word. */
export type SlotWrite = [slot: Hex, value: bigint]

/**
 * The writes that set `holder`'s balance to `units` and move `totalSupply`
 * by the same delta, so `sum(balanceOf) == totalSupply()` still holds after a
 * cheat. The blacklist flag is kept.
 *
 * @example
 * const read = (slot: Hex) => readWord(token, slot)
 * const writes = await setBalanceWrites(alice, 100_000_000n, read)
 * for (const [slot, value] of writes) await putWord(token, slot, value)
 */
export async function setBalanceWrites(
  holder: Address,
  units: bigint,
  read: ReadSlot,
): Promise<SlotWrite[]> {
  const slot = balanceSlot(holder)
  const current = await read(slot)
  const next = encodeBalanceWord(current, units)
  const delta = units - decodeBalanceWord(current).balance
  const supply = (await read(totalSupplySlot)) + delta
  // A negative supply means the state was already inconsistent: clamp, don't wrap.
  return [
    [slot, next],
    [totalSupplySlot, supply < 0n ? 0n : supply],
  ]
}

/** The write that sets or clears `account`'s blacklist flag, keeping its balance. */
export async function setBlacklistedWrites(
  account: Address,
  blacklisted: boolean,
  read: ReadSlot,
): Promise<SlotWrite[]> {
  const slot = balanceSlot(account)
  return [[slot, blacklistWord(await read(slot), blacklisted)]]
}

/** The write that pauses or unpauses the token, keeping the packed pauser. */
export async function setPausedWrites(
  paused: boolean,
  read: ReadSlot,
): Promise<SlotWrite[]> {
  return [[pausedSlot, encodePausedWord(await read(pausedSlot), paused)]]
}

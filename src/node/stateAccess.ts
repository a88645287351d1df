import type { Hex } from 'viem'
import {
  Account,
  KECCAK256_RLP_S,
  type MerkleStateManager,
  type StateManagerInterface,
  bigIntToUnpaddedBytes,
  bytesToBigInt,
  bytesToHex,
  createAddressFromString,
  getMerkleStateProof,
  hexToBytes,
  setLengthLeft,
} from '../evm/engine.js'
import { type SlotWrite, maxBalance, setBalanceWrites, setBlacklistedWrites, setPausedWrites } from '../evm/engine.js'
import { InvalidInputError } from './errors.js'

/**
 * The node's state reads and cheat writes keyed by hex addresses and words,
 * so the RPC layer reads balances, code, storage and proofs, and writes its
 * cheats, without the engine's address, account or state types. A state here
 * is what `node.views.reader(view)` returns or what `node.cheat` hands its
 * change.
 */
export type EngineState = StateManagerInterface

/** The account at `addr` (nonce and balance), or undefined when it does not exist. */
export async function readAccount(state: EngineState, addr: Hex): Promise<{ nonce: bigint; balance: bigint } | undefined> {
  return state.getAccount(createAddressFromString(addr))
}

export async function readCode(state: EngineState, addr: Hex): Promise<Hex> {
  return bytesToHex(await state.getCode(createAddressFromString(addr))) as Hex
}

/** The storage word at `slot`, as 32 bytes. */
export async function readStorageWord(state: EngineState, addr: Hex, slot: Hex): Promise<Hex> {
  return bytesToHex(setLengthLeft(await state.getStorage(createAddressFromString(addr), hexToBytes(slot)), 32)) as Hex
}

/** The storage words at `slots` of `addr`, as 32 bytes each. */
export async function readStorageWords(state: EngineState, addr: Hex, slots: readonly Hex[]): Promise<Hex[]> {
  const account = createAddressFromString(addr)
  const out: Hex[] = []
  for (const slot of slots) out.push(bytesToHex(setLengthLeft(await state.getStorage(account, hexToBytes(slot)), 32)) as Hex)
  return out
}

/** The account at `at`, created empty when missing, so code and storage have an account to live in. */
async function accountAt(state: EngineState, at: Hex) {
  const key = createAddressFromString(at)
  const account = (await state.getAccount(key)) ?? new Account()
  return { key, account }
}

export async function setBalance(state: EngineState, at: Hex, balance: bigint): Promise<void> {
  const { key, account } = await accountAt(state, at)
  account.balance = balance
  await state.putAccount(key, account)
}

export async function setCode(state: EngineState, at: Hex, code: Hex): Promise<void> {
  const { key, account } = await accountAt(state, at)
  await state.putAccount(key, account)
  await state.putCode(key, hexToBytes(code))
}

export async function setNonce(state: EngineState, at: Hex, nonce: bigint): Promise<void> {
  const { key, account } = await accountAt(state, at)
  account.nonce = nonce
  await state.putAccount(key, account)
}

export async function setStorageAt(state: EngineState, at: Hex, slot: Hex, value: Hex): Promise<void> {
  const { key, account } = await accountAt(state, at)
  await state.putAccount(key, account)
  await state.putStorage(key, hexToBytes(slot), hexToBytes(value))
}

/** An account and storage proof (EIP-1186) at `state`'s root; an empty storage trie proves each key 0 with no nodes, as geth does. */
export async function stateProof(state: MerkleStateManager, addr: Hex, keys: readonly Hex[]) {
  const proof = await getMerkleStateProof(state, createAddressFromString(addr), keys.map((key) => hexToBytes(key)))
  return { ...proof, emptyStorage: proof.storageHash === KECCAK256_RLP_S }
}

/** The largest token balance a cheat may set: bit 255 of the balance word is the blacklist flag. */
export const maxTokenBalance = maxBalance

type TokenWrites = (read: (slot: Hex) => Promise<bigint>) => Promise<SlotWrite[]>

/** The token's slot writes computed from `state` and applied to it; throws when no token is deployed at `token`. */
export async function writeTokenSlots(state: EngineState, tokenAddress: Hex, writes: TokenWrites): Promise<void> {
  const token = createAddressFromString(tokenAddress)
  // An imported chain (or a config without the token) has nothing to write into.
  if ((await state.getCode(token)).length === 0) throw new InvalidInputError(`no payment token deployed at ${tokenAddress}`)
  const read = async (slot: Hex) => bytesToBigInt(await state.getStorage(token, hexToBytes(slot)))
  // a zero word becomes empty bytes, which deletes the slot as SSTORE 0 does
  for (const [slot, value] of await writes(read)) await state.putStorage(token, hexToBytes(slot), bigIntToUnpaddedBytes(value))
}

export const tokenBalanceWrites = (holder: Hex, amount: bigint): TokenWrites => (read) => setBalanceWrites(holder, amount, read)
export const tokenPausedWrites = (paused: boolean): TokenWrites => (read) => setPausedWrites(paused, read)
export const tokenBlacklistedWrites = (account: Hex, blacklisted: boolean): TokenWrites => (read) =>
  setBlacklistedWrites(account, blacklisted, read)

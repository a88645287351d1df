import type { StateManagerInterface } from '../../evm/engine.js'
import { Account, createAddressFromString, hexToBytes, setLengthLeft } from '../../evm/engine.js'
import type { Address, Hex } from 'viem'
import { getAddress } from 'viem/utils'
import type { StateOverrides } from '../call.js'
import { SimulateError } from '../errors.js'

/** The EVM's active precompiles, keyed by lowercase address without 0x (ethereumjs's key). */
export type Precompiles = Map<string, unknown>

const key = (address: Address) => address.slice(2).toLowerCase()
const fail = (message: string): never => {
  throw new SimulateError(-32000, message)
}

/**
 * Applies one block's state overrides as geth's `override.StateOverride.Apply`
 * does, into `state` and the block's precompile set: addresses in sorted
 * order; `movePrecompileToAddress` first (the source must be a precompile, the
 * destination must not be overridden too, and what a moved precompile landed
 * on cannot be overridden afterwards); any override of a precompile address
 * disables the precompile there; then nonce, code, balance (replaced, not
 * added), and `state` (all storage replaced) or `stateDiff` (slots patched),
 * never both. geth answers each refusal with -32000.
 *
 * An override that leaves an account empty writes nothing: geth drops empty
 * accounts when it computes the root, and EXTCODEHASH treats them as absent.
 *
 * `fork` is the fork's precompile set, left as it is: the block's changed set
 * is a copy, made at the first change (most overrides touch no precompile).
 * Returns that copy, or undefined when the set did not change.
 */
export async function applyOverrides(state: StateManagerInterface, overrides: StateOverrides, fork: Precompiles): Promise<Precompiles | undefined> {
  let changed: Precompiles | undefined
  let precompiles = fork
  const edit = () => (changed ??= precompiles = new Map(fork))
  const entries = Object.entries(overrides).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) as [Address, StateOverrides[Address]][]
  const movedTo = new Set<string>()
  for (const [address, o] of entries) {
    const k = key(address)
    if (movedTo.has(k)) fail(`account ${getAddress(address)} has already been overridden by a precompile`)
    const precompile = precompiles.get(k)
    const isPrecompile = precompile !== undefined || precompiles.has(k)
    if (o.movePrecompileToAddress !== undefined) {
      if (!isPrecompile) fail(`account ${getAddress(address)} is not a precompile`)
      const to = o.movePrecompileToAddress
      if (Object.keys(overrides).some((a) => a.toLowerCase() === to.toLowerCase()))
        fail(`account ${getAddress(to)} is already overridden`)
      edit().set(key(to), precompile)
      movedTo.add(key(to))
    }
    if (isPrecompile) edit().delete(k)
    if (o.state !== undefined && o.stateDiff !== undefined) fail(`account ${getAddress(address)} has both 'state' and 'stateDiff'`)

    const at = createAddressFromString(address)
    const existing = await state.getAccount(at)
    const account = existing ?? new Account()
    if (o.nonce !== undefined) account.nonce = o.nonce
    if (o.balance !== undefined) account.balance = o.balance
    const code = o.code === undefined ? undefined : hexToBytes(o.code)
    const touchesStorage = o.state !== undefined || o.stateDiff !== undefined
    const writes = o.nonce !== undefined || o.balance !== undefined || (code !== undefined && code.length > 0) || touchesStorage
    if (!writes && existing === undefined) continue
    if (existing === undefined || o.nonce !== undefined || o.balance !== undefined) await state.putAccount(at, account)
    if (code !== undefined) await state.putCode(at, code)
    if (o.state !== undefined) {
      await state.clearStorage(at)
      await putSlots(state, at, o.state)
    }
    if (o.stateDiff !== undefined) await putSlots(state, at, o.stateDiff)
    // An account given only storage stays, as geth keeps it until a transaction touches it. One with a nonce or a
    // balance (what overrides mostly give) is not empty whatever its code: no need to read it back.
    const maybeEmpty = account.nonce === 0n && account.balance === 0n
    if (!touchesStorage && maybeEmpty && (await state.getAccount(at))?.isEmpty()) await state.deleteAccount(at)
  }
  return changed
}

async function putSlots(state: StateManagerInterface, at: ReturnType<typeof createAddressFromString>, slots: Record<Hex, Hex>) {
  for (const [slot, value] of Object.entries(slots))
    await state.putStorage(at, setLengthLeft(hexToBytes(slot as Hex), 32), hexToBytes(value as Hex))
}

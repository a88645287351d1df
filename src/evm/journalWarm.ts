import { stripHexPrefix } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'

/**
 * `Journal.addAlwaysWarmAddress` / `addAlwaysWarmSlot` of @ethereumjs/evm 10.1
 * without a regular expression per address that has no `0x`.
 *
 * Every transaction and call warms each precompile (17 from Prague on), the
 * sender, the recipient and the coinbase, each through `stripHexPrefix`,
 * which tests the whole string against /^0x[0-9A-Fa-f]*$/ even when it
 * plainly has no prefix: ~2 % of a token balanceOf. A string that does not
 * start with `0x` is returned as is, as `stripHexPrefix` would return it;
 * anything else still goes through `stripHexPrefix`.
 *
 * An address warmed without slots (all of those) gets one shared empty set
 * of slots instead of a new Set each: ~20 Sets per transaction, a share of
 * the garbage of a 100-call eth_simulateV1. Nothing writes into an always-warm
 * address's set but addAlwaysWarmSlot, which first gives the address a set
 * of its own; the journal's other readers (isWarmedStorage) only ask `has`.
 * The bodies are the library's otherwise.
 */

type Journal = {
  alwaysWarmJournal: Map<string, Set<string>>
  accessList?: Map<string, Set<string>>
  addAlwaysWarmAddress(addressStr: string, addToAccessList?: boolean): void
  addAlwaysWarmSlot(addressStr: string, slotStr: string, addToAccessList?: boolean): void
}

/** `stripHexPrefix`, answering at once for a string without the prefix. */
export function stripPrefix(value: string): string {
  if (typeof value === 'string' && (value.charCodeAt(0) !== 48 || value.charCodeAt(1) !== 120)) return value
  return stripHexPrefix(value)
}

let applied = false

/** The slots of every always-warm address that has none: read only (add throws), replaced at its first slot. */
export const noSlots: Set<string> = new Set()
noSlots.add = () => {
  throw new Error('journalWarm: the shared empty slot set of always-warm addresses is read only')
}

export function applyJournalWarm() {
  if (applied) return
  applied = true
  const { Journal } = evmInternals.journal as { Journal: { prototype: Journal } }
  Journal.prototype.addAlwaysWarmAddress = function (this: Journal, addressStr, addToAccessList = false) {
    const address = stripPrefix(addressStr)
    if (!this.alwaysWarmJournal.has(address)) this.alwaysWarmJournal.set(address, noSlots)
    if (addToAccessList && this.accessList !== undefined) {
      if (!this.accessList.has(address)) this.accessList.set(address, new Set())
    }
  }
  Journal.prototype.addAlwaysWarmSlot = function (this: Journal, addressStr, slotStr, addToAccessList = false) {
    const address = stripPrefix(addressStr)
    this.addAlwaysWarmAddress(address, addToAccessList)
    let slotsSet = this.alwaysWarmJournal.get(address)!
    if (slotsSet === noSlots) this.alwaysWarmJournal.set(address, (slotsSet = new Set()))
    const slot = stripPrefix(slotStr)
    slotsSet.add(slot)
    if (addToAccessList && this.accessList !== undefined) this.accessList.get(address)!.add(slot)
  }
}

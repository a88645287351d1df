import { Hardfork } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'
import { bytesOfHex } from './hexKeys.js'

/**
 * `Journal.cleanup` of @ethereumjs/evm 10.1 (run at the end of every
 * transaction and simulated call), with each touched address turned back
 * into bytes by Node's native hex decoder (`bytesOfHex`) instead of
 * `hexToBytes`, which tests the string against a regular expression and
 * decodes it a character pair at a time: ~1 % of the CPU and ~3 % of what a
 * 100-call eth_simulateV1 allocated (three or four touched accounts per
 * call). The touched set's keys are the flat hex of 20-byte addresses;
 * anything else goes to `hexToBytes` (bytesOfHex's fallback) and fails as
 * it did. The body is the library's otherwise, in its order.
 */

type Journal = {
  common: { gteHardfork(hardfork: string): boolean }
  touched: Set<string>
  stateManager: { getAccount(address: Address): Promise<{ isEmpty(): boolean } | undefined> }
  deleteAccount(address: Address): Promise<void>
  cleanJournal(): void
  DEBUG: boolean
  _debug(message: string): void
  accessList?: unknown
  preimages?: unknown
  cleanup(): Promise<void>
}

let applied = false

export function applyJournalCleanup() {
  if (applied) return
  applied = true
  const { Journal } = evmInternals.journal as { Journal: { prototype: Journal } }
  Journal.prototype.cleanup = async function (this: Journal) {
    if (this.common.gteHardfork(Hardfork.SpuriousDragon)) {
      for (const addressHex of this.touched) {
        const address = new Address(bytesOfHex(`0x${addressHex}`))
        const account = await this.stateManager.getAccount(address)
        if (account === undefined || account.isEmpty()) {
          await this.deleteAccount(address)
          if (this.DEBUG) this._debug(`Cleanup touched account address=${address} (>= SpuriousDragon)`)
        }
      }
    }
    this.cleanJournal()
    delete this.accessList
    delete this.preimages
  }
}

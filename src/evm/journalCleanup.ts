import { Hardfork } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'
import { bytesOfHex } from './hexKeys.js'

/**
 * `Journal.prototype.cleanup` of @ethereumjs/evm 10.1 (EIP-161: touched empty
 * accounts deleted at the end of a transaction) with two of its steps made
 * cheaper, and its body otherwise the library's, in the same order.
 *
 * - Each touched address is parsed back from its hex key by `hexToBytes`, a
 *   regular expression and a character pair at a time: runTx cleans up twice
 *   per transaction and a token transfer touches four accounts (sender,
 *   token, recipient, coinbase), ~1.4 % of a 100-call eth_simulateV1's CPU.
 *   bytesOfHex (hexKeys.ts) gives the same bytes, and leaves a malformed key
 *   to `hexToBytes` and its error.
 * - "Spurious Dragon or later" is asked of the Common each time, a walk of its
 *   hardfork list; the answer is kept per Common for as long as its hardfork
 *   (and its list) stays the same, which is what the walk reads.
 */
type Journal = {
  common: { hardfork(): string; hardforks(): unknown; gteHardfork(hardfork: string): boolean }
  touched: Set<string>
  stateManager: { getAccount(address: Address): Promise<{ isEmpty(): boolean } | undefined> }
  DEBUG: boolean
  _debug(message: string): void
  deleteAccount(address: Address): Promise<void>
  cleanJournal(): void
  accessList?: unknown
  preimages?: unknown
  cleanup(): Promise<void>
}

type Memo = { hardfork: string; hardforks: unknown; after: boolean }
const spuriousDragonMemo = new WeakMap<object, Memo>()

/** `common.gteHardfork(SpuriousDragon)`, kept while the Common's hardfork and hardfork list are the same. */
export function afterSpuriousDragon(common: Journal['common']): boolean {
  const hardfork = common.hardfork()
  const hardforks = common.hardforks()
  const memo = spuriousDragonMemo.get(common)
  if (memo !== undefined && memo.hardfork === hardfork && memo.hardforks === hardforks) return memo.after
  const after = common.gteHardfork(Hardfork.SpuriousDragon)
  spuriousDragonMemo.set(common, { hardfork, hardforks, after })
  return after
}

let applied = false

export function applyJournalCleanup() {
  if (applied) return
  applied = true
  const { Journal } = evmInternals.journal as { Journal: { prototype: Journal } }
  Journal.prototype.cleanup = async function (this: Journal) {
    if (afterSpuriousDragon(this.common)) {
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

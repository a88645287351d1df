import type { Address, Hex } from 'viem'
import type { StateManagerInterface } from '../evm/engine.js'
import type { Controls } from './controls.js'
import {
  setBalance,
  setCode,
  setNonce,
  setStorageAt,
  tokenBalanceWrites,
  tokenBlacklistedWrites,
  tokenPausedWrites,
  writeTokenSlots,
} from './stateAccess.js'

/** What the cheats change: the head's state through the queued `cheat`, and the impersonation switches. */
export type CheatParts = {
  /** Changes the head's state outside any transaction, in the write queue (node.ts). */
  cheat(change: (state: StateManagerInterface) => Promise<void>): Promise<void>
  write<T>(fn: () => Promise<T>): Promise<T>
  controls: Controls
  /** The payment token's address (the config's). */
  token: Hex
}

/**
 * The test-harness cheats as node operations (anvil_/hardhat_ setBalance,
 * setCode, setNonce, setStorageAt, the token cheats, impersonation). Each
 * state cheat is one queued `cheat`: it changes the head's state, so
 * `latest` sees it at once as on Anvil, and the pre-confirmed transactions
 * run again on top of it, so `pending` does too.
 */
export function createCheats(parts: CheatParts) {
  const { cheat, write, controls, token } = parts
  return {
    setBalance: (address: Address, balance: bigint) => cheat((state) => setBalance(state, address, balance)),
    setCode: (address: Address, code: Hex) => cheat((state) => setCode(state, address, code)),
    setNonce: (address: Address, nonce: bigint) => cheat((state) => setNonce(state, address, nonce)),
    setStorageAt: (address: Address, slot: Hex, value: Hex) => cheat((state) => setStorageAt(state, address, slot, value)),
    /**
     * The token cheats write the token's storage directly (no owner, pauser
     * or blacklister key needed), like Anvil's `deal`; a balance change moves
     * `totalSupply()` by the difference, so `sum(balanceOf) == totalSupply()`
     * holds as it does for the real token (src/evm/tokenSlots.ts).
     */
    setTokenBalance: (holder: Address, amount: bigint) =>
      cheat((state) => writeTokenSlots(state, token, tokenBalanceWrites(holder, amount))),
    setTokenPaused: (paused: boolean) => cheat((state) => writeTokenSlots(state, token, tokenPausedWrites(paused))),
    setTokenBlacklisted: (account: Address, blacklisted: boolean) =>
      cheat((state) => writeTokenSlots(state, token, tokenBlacklistedWrites(account, blacklisted))),
    // Impersonation is not chain state, but it changes what a send in the queue may do: it goes through the queue too.
    impersonate: (address: Address, enabled: boolean) =>
      write(async () => (enabled ? controls.impersonate(address) : controls.stopImpersonating(address))),
    autoImpersonate: (enabled: boolean) =>
      write(async () => {
        controls.autoImpersonate = enabled
      }),
    /** anvil_setLoggingEnabled: undefined (the default) follows the config's `quiet`. */
    setLogging(enabled: boolean) {
      controls.logging = enabled
    },
  }
}

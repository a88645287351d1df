import type { MiningConfig } from '../config/schema.js'

/** What switching the mining mode needs: the sealer, the configured tick pace, the write queue. */
export type MiningParts = {
  sealer: { mode(): MiningConfig; setMode(mode: MiningConfig): void }
  preconfInterval: number
  write<T>(fn: () => Promise<T>): Promise<T>
}

/** Mining switched off by a test client: transactions wait for a seal but show in `pending` at once, as on Anvil. */
const manualMode: MiningConfig = { type: 'manual', preconfirm: 'submit' }

/**
 * The mining switches of the test clients (evm_setAutomine,
 * evm_setIntervalMining and their anvil_/hardhat_ names) with Anvil's and
 * Hardhat's rules: switching automine off only leaves auto mode, and an
 * interval of 0 only leaves interval mode; anything else is left as it was.
 * The mode is read and changed in one write, so a seal in flight never sees
 * half a switch, and setting the mode it already has restarts no timer.
 */
export function createMiningControl(parts: MiningParts) {
  const { sealer } = parts
  /** Switches to `mode` when `from` (the mode now) allows it. */
  const switchTo = (next: (from: MiningConfig) => MiningConfig | undefined) =>
    parts.write(async () => {
      const mode = next(sealer.mode())
      if (mode !== undefined && JSON.stringify(sealer.mode()) !== JSON.stringify(mode)) sealer.setMode(mode)
    })
  return {
    setAutomine: (enabled: boolean) =>
      switchTo((from) => (enabled ? { type: 'auto' } : from.type === 'auto' ? manualMode : undefined)),
    /** Interval mining every `ms`; the pre-confirmation tick stays at the configured pace or faster. 0 turns it off. */
    setIntervalMining: (ms: bigint) =>
      switchTo((from) => {
        if (ms === 0n) return from.type === 'interval' ? manualMode : undefined
        const blockTime = Number(ms)
        return { type: 'interval', blockTime, preconfInterval: Math.min(parts.preconfInterval, blockTime) }
      }),
  }
}

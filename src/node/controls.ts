import type { Address } from 'viem'

/**
 * Header fields a test can pin for the blocks to come (evm_setBlockGasLimit,
 * anvil_setCoinbase, anvil_setNextBlockBaseFeePerGas). The pre-confirmed
 * layer reads them each time it starts a block.
 */
export type BlockOverrides = {
  gasLimit: bigint | undefined
  coinbase: Address | undefined
  /** One-shot: applies to the next block only, then clears. */
  nextBaseFee: bigint | undefined
}

/** Saved controls for snapshots. */
export type ControlsState = {
  timeOffset: bigint
  impersonated: Address[]
  autoImpersonate: boolean
  block: BlockOverrides
}

/**
 * The test-harness switches of one node that are not chain state:
 * impersonation (anvil_impersonateAccount), the total time shift reported by
 * evm_increaseTime, and header overrides. Snapshots save and restore them.
 */
export function createControls() {
  const impersonated = new Set<Address>()
  const controls = {
    /** Sum of every manual time move (evm_increaseTime, anvil_setTime), as Anvil and Hardhat report it. */
    timeOffset: 0n,
    autoImpersonate: false,
    /** anvil_setLoggingEnabled; undefined follows the config's `quiet`. */
    logging: undefined as boolean | undefined,
    block: { gasLimit: undefined, coinbase: undefined, nextBaseFee: undefined } as BlockOverrides,
    impersonate(address: Address) {
      impersonated.add(address.toLowerCase() as Address)
    },
    stopImpersonating(address: Address) {
      impersonated.delete(address.toLowerCase() as Address)
    },
    /** Whether eth_sendTransaction may send from `address` without its key. */
    isImpersonated(address: Address) {
      return controls.autoImpersonate || impersonated.has(address.toLowerCase() as Address)
    },
    save(): ControlsState {
      return {
        timeOffset: controls.timeOffset,
        impersonated: [...impersonated],
        autoImpersonate: controls.autoImpersonate,
        block: { ...controls.block },
      }
    },
    restore(state: ControlsState) {
      controls.timeOffset = state.timeOffset
      impersonated.clear()
      for (const address of state.impersonated) impersonated.add(address)
      controls.autoImpersonate = state.autoImpersonate
      controls.block = { ...state.block }
    },
  }
  return controls
}

export type Controls = ReturnType<typeof createControls>

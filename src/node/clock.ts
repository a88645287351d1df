/**
 * Where block timestamps come from. `wall` follows the machine's clock plus an
 * offset moved by `evm_increaseTime`/`anvil_setTime`; `virtual` starts at the
 * configured genesis time and moves only when told or when a block seals, so
 * the same inputs give the same block hashes on every run (invariant I6).
 */
export type Clock = {
  readonly kind: 'wall' | 'virtual'
  /** Current chain time in whole seconds. */
  now(): bigint
  /** Moves the clock forward (or back, for a negative value) by `seconds`. */
  increase(seconds: bigint): void
  /** Sets the clock to `seconds`. */
  set(seconds: bigint): void
  /** Tells the clock a block sealed at `timestamp`; the virtual clock catches up to it. */
  sealed(timestamp: bigint): void
  /** Opaque state for snapshots and fixtures. */
  save(): ClockState
  restore(state: ClockState): void
}

export type ClockState = { kind: 'wall' | 'virtual'; value: string }

/** A clock that reads the machine's time, shifted by an offset. */
export function createWallClock(now: () => number = Date.now): Clock {
  let offset = 0n
  const read = () => BigInt(Math.floor(now() / 1000))
  return {
    kind: 'wall',
    now: () => read() + offset,
    increase(seconds) {
      offset += seconds
    },
    set(seconds) {
      offset = seconds - read()
    },
    sealed() {},
    save: () => ({ kind: 'wall', value: offset.toString() }),
    restore(state) {
      offset = BigInt(state.value)
    },
  }
}

/** A clock that moves only when told: deterministic by construction. */
export function createVirtualClock(start: bigint): Clock {
  let value = start
  return {
    kind: 'virtual',
    now: () => value,
    increase(seconds) {
      value += seconds
    },
    set(seconds) {
      value = seconds
    },
    sealed(timestamp) {
      if (timestamp > value) value = timestamp
    },
    save: () => ({ kind: 'virtual', value: value.toString() }),
    restore(state) {
      value = BigInt(state.value)
    },
  }
}

import type { MiningConfig } from '../config/schema.js'

/**
 * Timers for the `interval` mode (a tick every `preconfInterval`, a seal every
 * `blockTime`) and a slow refresher that keeps an idle pending block's
 * timestamp current under the wall clock. Timers are unref'd so a devnet
 * never keeps a test process alive, and each one re-arms only after its job
 * ran, so a slow seal cannot pile up jobs.
 */
export function createSealer(args: {
  mining: MiningConfig
  tick: () => Promise<unknown>
  seal: () => Promise<unknown>
  refresh: (() => Promise<unknown>) | undefined
  onError: (error: unknown) => void
}) {
  let mode: MiningConfig = args.mining
  let timers: NodeJS.Timeout[] = []
  let running = false

  const every = (ms: number, job: () => Promise<unknown>) => {
    const arm = () => {
      const timer = setTimeout(async () => {
        if (!running) return
        try {
          await job()
        } catch (error) {
          args.onError(error)
        }
        if (running) arm()
      }, ms)
      timer.unref()
      timers = timers.filter((t) => t !== timer).concat(timer)
    }
    arm()
  }

  const start = () => {
    running = true
    if (mode.type === 'interval') {
      every(mode.preconfInterval, args.tick)
      every(mode.blockTime, args.seal)
    } else if (args.refresh) every(1000, args.refresh)
  }

  const stop = () => {
    running = false
    for (const timer of timers) clearTimeout(timer)
    timers = []
  }

  return {
    mode: () => mode,
    start,
    stop,
    /** Switches mode (evm_setAutomine, evm_setIntervalMining, ...). */
    setMode(next: MiningConfig) {
      stop()
      mode = next
      start()
    },
  }
}

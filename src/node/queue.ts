/**
 * The single writer. Every change to the node (admission, tick, seal, cheats,
 * revert, fixture load) runs through `run`, one at a time, in call order.
 * ethereumjs is async all the way down, so without this two mutations would
 * interleave at every `await` (EDR holds one mutex for the same reason).
 * Reads never enter the queue: they use immutable snapshots.
 */
export type Queue = {
  run<T>(fn: () => Promise<T> | T): Promise<T>
  /** Resolves once everything queued so far has run. */
  idle(): Promise<void>
}

export function createQueue(): Queue {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run(fn) {
      const result = tail.then(fn)
      // The chain continues whatever the outcome of this job.
      tail = result.catch(() => {})
      return result
    },
    async idle() {
      await tail
    },
  }
}

/**
 * When auto mining seals: the seal that includes a transaction just admitted
 * (called from inside the write queue, right after the admission).
 *
 * The seal joins the queue only after the event loop has taken in the
 * requests that already arrived (setImmediate runs after the I/O poll), so
 * transactions admitted meanwhile go into the same block (as on Anvil)
 * instead of one seal per transaction. A seal not yet started always runs
 * after the admission that asks for it, so it includes that transaction.
 *
 * Senders that each wait for their answer before sending again (a payment
 * service's workers) send their next transactions together when a block's
 * answers go out, but they reach the node one by one: sealing at the first
 * gave blocks alternating between 1-2 and 8-10 transactions, and every block
 * costs its own state root, header and hash. So when fewer transactions wait
 * than there were senders in the last two blocks (when either held more than
 * one), the seal waits for them, until as many have arrived or `maxWaitMs`
 * passed: the two groups of senders merge into one block. A client sending
 * and waiting, from one account or several in turn, keeps one block per
 * transaction and no wait.
 */
export function createAutoSeal<T>(args: {
  /** Queues the seal; it calls `started()` when it begins. */
  seal: (started: () => void) => Promise<T>
  /** Transactions waiting for the next block. */
  waiting: () => number
  /** Senders of the sealed block's transactions. */
  senders: (sealed: T) => Iterable<string>
  maxWaitMs: number
}) {
  type Next = { promise: Promise<T>; go: () => void; timer: NodeJS.Timeout | undefined; queued: boolean }
  let next: Next | undefined
  let expected = 1
  let previousSenders: Set<string> = new Set()

  const create = (): Next => {
    let go!: () => void
    const promise = new Promise<T>((resolve, reject) => {
      go = () => {
        if (entry.queued) return
        entry.queued = true
        if (entry.timer !== undefined) clearTimeout(entry.timer)
        args
          .seal(() => {
            if (next === entry) next = undefined
          })
          .then((sealed) => {
            const senders = new Set(args.senders(sealed))
            // Blocks of one transaction each (one client at a time, whichever account it sends from): no wait.
            expected = senders.size > 1 || previousSenders.size > 1 ? new Set([...senders, ...previousSenders]).size : 1
            previousSenders = senders
            resolve(sealed)
          }, reject)
      }
    })
    const entry: Next = { promise, go, timer: undefined, queued: false }
    setImmediate(() => {
      if (entry.queued) return
      if (args.waiting() >= expected) entry.go()
      else entry.timer = setTimeout(entry.go, args.maxWaitMs)
    })
    return entry
  }

  return {
    /** The seal that will include the transaction just admitted. */
    request(): Promise<T> {
      const entry = (next ??= create())
      if (entry.timer !== undefined && args.waiting() >= expected) entry.go()
      return entry.promise
    },
  }
}

/**
 * One lock per sender for the node-filled sends (eth_sendTransaction,
 * eth_sendUnsignedTransaction), geth's AddrLocker: the nonce is read from
 * the pending state and pool, the transaction is filled (gas estimated),
 * signed and admitted, and only then may the next send from that sender read
 * the nonce. Without it, sends from one account in flight together (a JSON-RPC
 * batch, a script's Promise.all) all took the same nonce and all but one
 * were refused (`already known` or `replacement transaction underpriced`).
 * The lock covers admission only, never the wait for a block.
 */
export function createSenderLocks() {
  const tails = new Map<string, Promise<unknown>>()
  return {
    async run<T>(sender: string, fn: () => Promise<T>): Promise<T> {
      const key = sender.toLowerCase()
      const previous = tails.get(key) ?? Promise.resolve()
      const result = previous.then(fn)
      const tail = result.then(
        () => {},
        () => {},
      )
      tails.set(key, tail)
      try {
        return await result
      } finally {
        // The last one out leaves no entry behind.
        if (tails.get(key) === tail) tails.delete(key)
      }
    },
    /** Senders with a send in progress (for tests). */
    size: () => tails.size,
  }
}

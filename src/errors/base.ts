/**
 * Base of every domain error in devnet, shaped like viem's `BaseError`:
 * a short message for people, optional details and meta lines, and a cause
 * chain that `walk()` follows.
 */
export class DevnetError extends Error {
  override name = 'DevnetError'
  shortMessage: string
  details: string | undefined
  metaMessages: string[] | undefined

  constructor(
    shortMessage: string,
    options: {
      cause?: unknown
      details?: string | undefined
      metaMessages?: string[] | undefined
    } = {},
  ) {
    const lines = [shortMessage]
    if (options.metaMessages?.length) lines.push('', ...options.metaMessages)
    if (options.details) lines.push('', `Details: ${options.details}`)
    super(lines.join('\n'), { cause: options.cause })
    this.shortMessage = shortMessage
    this.details = options.details
    this.metaMessages = options.metaMessages
  }

  /** Follows `cause` down to the deepest error, or to the first that matches `fn`. */
  walk(fn?: (error: unknown) => boolean): unknown {
    let error: unknown = this
    while (error instanceof Error) {
      if (fn?.(error)) return error
      if (error.cause === undefined) break
      error = error.cause
    }
    return fn ? null : error
  }
}

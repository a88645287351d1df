import { DevnetError } from '../errors/base.js'

/** Package version stamped into every error message, as viem does. */
const version = 'devnet@0.1.0'
const docsBase = 'https://github.com/devnet/devnet/blob/main/README.md'

/** Options shared by every {@link PaymentsError}. */
export type PaymentsErrorParameters = {
  cause?: unknown
  details?: string | undefined
  docsPath?: string | undefined
  metaMessages?: string[] | undefined
}

/**
 * Base class of every error thrown by `devnet/payments`, shaped like viem's
 * `BaseError`: a one-line `shortMessage`, optional `metaMessages`, a
 * `docsPath`, `details` taken from the cause and `walk()` (from
 * `DevnetError`) to reach the underlying (usually viem) error.
 *
 * Messages never contain a signature: the authorization signature is a bearer
 * credential, so callers may log these errors freely.
 */
export class PaymentsError extends DevnetError {
  override details: string
  docsPath?: string | undefined
  override metaMessages: string[] | undefined
  override shortMessage: string
  version = version
  override name = 'PaymentsError'

  constructor(shortMessage: string, args: PaymentsErrorParameters = {}) {
    const cause = args.cause
    const details = (() => {
      if (args.details) return args.details
      if (cause && typeof cause === 'object') {
        const c = cause as { shortMessage?: unknown; details?: unknown; message?: unknown }
        if (typeof c.details === 'string' && c.details) return c.details
        if (typeof c.shortMessage === 'string') return c.shortMessage
        if (typeof c.message === 'string') return c.message
      }
      return ''
    })()
    const docsPath = args.docsPath ?? '#payments'
    super(shortMessage, { cause, details, metaMessages: args.metaMessages })
    // viem's layout: short message, meta lines, Docs, Details, Version.
    this.message = [
      shortMessage,
      '',
      ...(args.metaMessages ? [...args.metaMessages, ''] : []),
      `Docs: ${docsBase}${docsPath}`,
      ...(details ? [`Details: ${details}`] : []),
      `Version: ${version}`,
    ].join('\n')
    this.details = details
    this.docsPath = docsPath
    this.metaMessages = args.metaMessages
    this.shortMessage = shortMessage
  }
}

/** The amount is not a positive decimal with at most `decimals` places. */
export class InvalidAmountError extends PaymentsError {
  override name = 'Payments.InvalidAmountError'
  constructor({ amount, reason }: { amount: unknown; reason: string }) {
    super(`Invalid amount ${JSON.stringify(String(amount))}: ${reason}.`, {
      docsPath: '#amounts',
      metaMessages: [
        'Pass a decimal string such as "12.50" or integer units as a bigint (12_500_000n).',
      ],
    })
  }
}

/** The injected nonce source returned something other than 32 bytes. */
export class InvalidNonceError extends PaymentsError {
  override name = 'Payments.InvalidNonceError'
  constructor({ nonce }: { nonce: unknown }) {
    super('The nonce source must return 32 bytes (a 0x-prefixed 64-digit hex string).', {
      details: `got ${typeof nonce === 'string' ? `${nonce.length} characters` : typeof nonce}`,
    })
  }
}

/** The validity window is empty or inverted. */
export class InvalidValidityWindowError extends PaymentsError {
  override name = 'Payments.InvalidValidityWindowError'
  constructor({ validAfter, validBefore }: { validAfter: bigint; validBefore: bigint }) {
    super(
      `The validity window is empty: validAfter (${validAfter}) must be below validBefore (${validBefore}).`,
    )
  }
}

/** The signature returned by the wallet does not recover to the payer. */
export class SignatureVerificationError extends PaymentsError {
  override name = 'Payments.SignatureVerificationError'
  constructor({ from, primaryType, cause }: { from: string; primaryType: string; cause?: unknown }) {
    super(`The wallet's ${primaryType} signature does not verify for the payer ${from}.`, {
      cause,
      metaMessages: [
        'The wallet signed other data or with another key; nothing was stored.',
      ],
    })
  }
}

/** The signer passed in cannot sign (no account). */
export class SignerNotSupportedError extends PaymentsError {
  override name = 'Payments.SignerNotSupportedError'
  constructor({ reason }: { reason: string }) {
    super(`Cannot sign with this signer: ${reason}.`)
  }
}

/** An order id is stored already; one record per order. */
export class OrderExistsError extends PaymentsError {
  override name = 'Payments.OrderExistsError'
  constructor({ orderId }: { orderId: string }) {
    super(`Order ${JSON.stringify(orderId)} already has an authorization record.`, {
      docsPath: '#the-record-store',
    })
  }
}

/** A nonce is stored already for another order. */
export class NonceReusedError extends PaymentsError {
  override name = 'Payments.NonceReusedError'
  constructor({ orderId, nonce, existingOrderId }: { orderId: string; nonce: string; existingOrderId: string }) {
    super(
      `Nonce ${nonce} is already stored for order ${JSON.stringify(existingOrderId)}; refusing to store it for order ${JSON.stringify(orderId)}.`,
      {
        docsPath: '#the-record-store',
        metaMessages: ['Create a new authorization (new nonce) for every attempt.'],
      },
    )
  }
}

/** No record exists for the order. */
export class RecordNotFoundError extends PaymentsError {
  override name = 'Payments.RecordNotFoundError'
  constructor({ orderId }: { orderId: string }) {
    super(`No authorization record for order ${JSON.stringify(orderId)}.`)
  }
}

/** A record cannot move from its current state to the requested one. */
export class InvalidTransitionError extends PaymentsError {
  override name = 'Payments.InvalidTransitionError'
  constructor({ orderId, from, to }: { orderId: string; from: string; to: string }) {
    super(`Order ${JSON.stringify(orderId)} cannot move from "${from}" to "${to}".`, {
      docsPath: '#record-states',
    })
  }
}

/** The pre-capture check found reasons why the capture would fail. */
export class CaptureCheckError extends PaymentsError {
  override name = 'Payments.CaptureCheckError'
  failures: readonly { reason: string; message: string }[]
  constructor({ failures, action = 'capture' }: { failures: readonly { reason: string; message: string }[]; action?: string }) {
    super(
      `The ${action} would fail (${failures.length} reason${failures.length === 1 ? '' : 's'}); nothing was submitted.`,
      {
        docsPath: '#checking-before-capture',
        metaMessages: failures.map((f) => `- ${f.reason}: ${f.message}`),
      },
    )
    this.failures = failures
  }
}

/** The record's state does not allow the operation. */
export class RecordStateError extends PaymentsError {
  override name = 'Payments.RecordStateError'
  constructor({ orderId, state, action }: { orderId: string; state: string; action: string }) {
    super(`Cannot ${action} order ${JSON.stringify(orderId)}: it is "${state}".`, {
      docsPath: '#record-states',
    })
  }
}

/** The capture (or cancel) transaction was rejected or reverted on chain. */
export class TransactionRevertedError extends PaymentsError {
  override name = 'Payments.TransactionRevertedError'
  reason: string
  revertMessage: string | undefined
  transactionHash: string | undefined
  constructor({
    action,
    reason,
    revertMessage,
    transactionHash,
    cause,
  }: {
    action: string
    reason: string
    revertMessage?: string | undefined
    transactionHash?: string | undefined
    cause?: unknown
  }) {
    super(`The ${action} reverted: ${reason}.`, {
      cause,
      docsPath: '#capture',
      metaMessages: [
        ...(revertMessage ? [`Token said: ${revertMessage}`] : []),
        ...(transactionHash ? [`Transaction: ${transactionHash}`] : []),
      ],
    })
    this.reason = reason
    this.revertMessage = revertMessage
    this.transactionHash = transactionHash
  }
}

/** No receipt arrived within the timeout. */
export class ReceiptTimeoutError extends PaymentsError {
  override name = 'Payments.ReceiptTimeoutError'
  constructor({ hash, waitFor, timeout }: { hash: string; waitFor: string; timeout: number }) {
    super(`No ${waitFor} receipt for ${hash} within ${timeout} ms.`)
  }
}

/** The authorization is past its deadline; there is nothing left to do on chain. */
export class AuthorizationExpiredError extends PaymentsError {
  override name = 'Payments.AuthorizationExpiredError'
  constructor({ validBefore, now }: { validBefore: bigint; now: bigint }) {
    super(`The authorization expired at ${validBefore} (chain time is ${now}).`)
  }
}

/**
 * Removes every occurrence of `secrets` (hex, case-insensitive, with or without
 * `0x`) from the string fields of an error chain, so that a viem error that
 * printed the calldata cannot leak a signature into a log.
 */
export function redactError<error>(error: error, secrets: readonly string[]): error {
  const needles = secrets
    .map((s) => s.toLowerCase().replace(/^0x/, ''))
    .filter((s) => s.length >= 16)
  if (needles.length === 0) return error
  const scrub = (text: string) => {
    let out = text
    for (const needle of needles) {
      const pattern = new RegExp(`(0x)?${needle}`, 'gi')
      out = out.replace(pattern, '[redacted]')
    }
    return out
  }
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const record = current as Record<string, unknown>
    for (const key of ['message', 'shortMessage', 'details', 'stack']) {
      const value = record[key]
      if (typeof value === 'string') {
        try {
          record[key] = scrub(value)
        } catch {}
      }
    }
    const meta = record.metaMessages
    if (Array.isArray(meta))
      record.metaMessages = meta.map((m) => (typeof m === 'string' ? scrub(m) : m))
    current = record.cause
  }
  return error
}

import { InvalidTransitionError } from './errors.js'
import type { PaymentRecord, PaymentState, PaymentTransition } from './types.js'

/**
 * Allowed moves. Besides the merchant's own path (`authorized → preconfirmed →
 * captured`, `→ voided | canceled | expired | failed`), the chain has the last
 * word: a record in any state may become `captured` or `canceled` when the
 * indexer sees the nonce used, and goes back to `authorized` when a reorg
 * removes that event. `captured → captured` and `canceled → canceled` record
 * the block an event was (re)included in.
 */
export const transitions = {
  authorized: ['preconfirmed', 'captured', 'voided', 'canceled', 'expired', 'failed'],
  preconfirmed: ['captured', 'authorized', 'canceled', 'failed'],
  captured: ['captured', 'authorized'],
  failed: ['authorized', 'preconfirmed', 'captured', 'voided', 'canceled', 'expired', 'failed'],
  voided: ['captured', 'canceled'],
  canceled: ['canceled', 'authorized'],
  expired: ['captured', 'canceled'],
} as const satisfies Record<PaymentState, readonly PaymentState[]>

/** Whether a record may move from `from` to `to`. */
export function canTransition(from: PaymentState, to: PaymentState): boolean {
  return (transitions[from] as readonly PaymentState[]).includes(to)
}

/** Details attached to a transition. */
export type TransitionDetails = Omit<PaymentTransition, 'state' | 'at'>

/**
 * Returns the record moved to `state` at time `at`, with the transition
 * appended to its history; throws {@link InvalidTransitionError} otherwise.
 */
export function applyTransition(
  record: PaymentRecord,
  state: PaymentState,
  at: number,
  details: TransitionDetails = {},
): PaymentRecord {
  if (!canTransition(record.state, state))
    throw new InvalidTransitionError({ orderId: record.orderId, from: record.state, to: state })
  const transition: PaymentTransition = { state, at }
  for (const key of ['reason', 'transactionHash', 'blockHash', 'blockNumber'] as const)
    if (details[key] !== undefined) (transition as Record<string, unknown>)[key] = details[key]
  // A move to the same state only records where the event now sits (a
  // capture re-included in another block): not a transition of its own.
  const history = state === record.state ? record.history : [...record.history, transition]
  const next: PaymentRecord = { ...record, state, updatedAt: at, history }
  // Chain locations describe the capture (or cancel); a move back to
  // `authorized` means that transaction is no longer canonical.
  if (state === 'authorized') {
    delete next.transactionHash
    delete next.blockHash
    delete next.blockNumber
  }
  if (state === 'failed') next.reason = details.reason ?? 'unknown'
  else delete next.reason
  if (details.transactionHash) next.transactionHash = details.transactionHash
  if (details.blockHash) next.blockHash = details.blockHash
  if (details.blockNumber !== undefined) next.blockNumber = details.blockNumber
  return next
}

/** States in which the merchant may still submit the authorization. */
export const capturableStates = ['authorized', 'failed'] as const satisfies readonly PaymentState[]

import { describe, expect, test } from 'vitest'
import {
  InvalidTransitionError,
  type PaymentRecord,
  type PaymentState,
  applyTransition,
  canTransition,
  transitions,
} from '../../src/payments/index.js'

const record: PaymentRecord = {
  orderId: 'order-1',
  authorization: {
    primaryType: 'ReceiveWithAuthorization',
    domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x0000000000000000000000000000000000000001' },
    from: '0x0000000000000000000000000000000000000002',
    to: '0x0000000000000000000000000000000000000003',
    value: 1n,
    validAfter: 0n,
    validBefore: 100n,
    nonce: `0x${'11'.repeat(32)}`,
  },
  signature: '0x',
  state: 'authorized',
  createdAt: 1,
  updatedAt: 1,
  history: [{ state: 'authorized', at: 1 }],
}

describe('transitions', () => {
  test('default: the documented paths', () => {
    for (const [from, to] of [
      ['authorized', 'preconfirmed'],
      ['preconfirmed', 'captured'],
      ['authorized', 'captured'],
      ['authorized', 'voided'],
      ['authorized', 'canceled'],
      ['authorized', 'expired'],
      ['authorized', 'failed'],
      ['preconfirmed', 'failed'],
      ['captured', 'authorized'],
    ] as const)
      expect(canTransition(from, to), `${from} → ${to}`).toBe(true)
  })

  test('behavior: closed states stay closed for the merchant', () => {
    for (const from of ['voided', 'canceled', 'expired', 'captured'] as const) {
      expect(canTransition(from, 'preconfirmed')).toBe(false)
      expect(canTransition(from, 'failed')).toBe(false)
    }
    expect(canTransition('canceled', 'captured')).toBe(false)
    expect(canTransition('voided', 'authorized')).toBe(false)
  })

  test('behavior: every state is covered', () => {
    const states: PaymentState[] = ['authorized', 'preconfirmed', 'captured', 'voided', 'canceled', 'expired', 'failed']
    expect(Object.keys(transitions).sort()).toEqual([...states].sort())
  })
})

describe('applyTransition', () => {
  test('default: timestamped history', () => {
    const next = applyTransition(record, 'preconfirmed', 5, { transactionHash: `0x${'aa'.repeat(32)}` })
    const captured = applyTransition(next, 'captured', 9, { blockHash: `0x${'bb'.repeat(32)}`, blockNumber: 7n })
    expect(captured.state).toBe('captured')
    expect(captured.updatedAt).toBe(9)
    expect(captured.transactionHash).toBe(`0x${'aa'.repeat(32)}`)
    expect(captured.blockNumber).toBe(7n)
    expect(captured.history.map((h) => [h.state, h.at])).toEqual([
      ['authorized', 1],
      ['preconfirmed', 5],
      ['captured', 9],
    ])
    // The input is not mutated.
    expect(record.history).toHaveLength(1)
  })

  test('behavior: failed keeps its reason; leaving failed clears it', () => {
    const failed = applyTransition(record, 'failed', 2, { reason: 'paused' })
    expect(failed.reason).toBe('paused')
    expect(applyTransition(failed, 'expired', 3).reason).toBeUndefined()
  })

  test('behavior: back to authorized forgets the chain location', () => {
    const captured = applyTransition(record, 'captured', 2, { transactionHash: `0x${'aa'.repeat(32)}`, blockHash: `0x${'bb'.repeat(32)}`, blockNumber: 3n })
    const back = applyTransition(captured, 'authorized', 3, { reason: 'reorg' })
    expect(back.blockHash).toBeUndefined()
    expect(back.transactionHash).toBeUndefined()
    expect(back.history.at(-1)).toEqual({ state: 'authorized', at: 3, reason: 'reorg' })
  })

  test('error: invalid transition', () => {
    const voided = applyTransition(record, 'voided', 2)
    expect(() => applyTransition(voided, 'preconfirmed', 3)).toThrow(InvalidTransitionError)
    expect(() => applyTransition(voided, 'preconfirmed', 3)).toThrow('Order "order-1" cannot move from "voided" to "preconfirmed".')
  })
})

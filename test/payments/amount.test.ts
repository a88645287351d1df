import { describe, expect, test } from 'vitest'
import { InvalidAmountError, formatAmount, parseAmount } from '../../src/payments/index.js'

describe('parseAmount', () => {
  test('default', () => {
    expect(parseAmount('12.50')).toBe(12_500_000n)
    expect(parseAmount('12')).toBe(12_000_000n)
    expect(parseAmount('0.000001')).toBe(1n)
    expect(parseAmount('1000000')).toBe(1_000_000_000_000n)
    expect(parseAmount('007.1')).toBe(7_100_000n)
  })

  test('args: bigint is integer units', () => {
    expect(parseAmount(12_500_000n)).toBe(12_500_000n)
    expect(parseAmount(1n)).toBe(1n)
  })

  test('args: decimals', () => {
    expect(parseAmount('1.5', 18)).toBe(1_500_000_000_000_000_000n)
    expect(parseAmount('1', 0)).toBe(1n)
  })

  test.each([
    ['12.5000001', 'it has 7 decimal places; the token has 6'],
    ['0', 'it is zero'],
    ['0.000000', 'it is zero'],
    ['-1', 'it is negative'],
    ['-0.5', 'it is negative'],
    ['abc', 'it is not a decimal number'],
    ['', 'it is not a decimal number'],
    ['1e6', 'it is not a decimal number'],
    ['0x10', 'it is not a decimal number'],
    [' 1', 'it is not a decimal number'],
    ['1,5', 'it is not a decimal number'],
    ['1.', 'it is not a decimal number'],
    ['.5', 'it is not a decimal number'],
    ['+1', 'it is not a decimal number'],
  ])('error: %j', (input, reason) => {
    expect(() => parseAmount(input)).toThrow(InvalidAmountError)
    expect(() => parseAmount(input)).toThrow(reason)
  })

  test('error: zero, negative and oversized bigints', () => {
    expect(() => parseAmount(0n)).toThrow('it is zero')
    expect(() => parseAmount(-5n)).toThrow('it is negative')
    expect(() => parseAmount(2n ** 256n)).toThrow('it does not fit in uint256')
  })

  test('error: not a string or bigint', () => {
    expect(() => parseAmount(12.5 as never)).toThrow('expected a decimal string or a bigint, got a number')
  })

  test('error: message shape', () => {
    try {
      parseAmount('1.0000001')
      expect.unreachable()
    } catch (error) {
      expect((error as InvalidAmountError).shortMessage).toMatchInlineSnapshot(
        `"Invalid amount "1.0000001": it has 7 decimal places; the token has 6."`,
      )
      expect((error as Error).message).toContain('Docs: ')
      expect((error as Error).message).toContain('Version: devnet@')
    }
  })
})

describe('formatAmount', () => {
  test('default', () => {
    expect(formatAmount(12_500_000n)).toBe('12.50')
    expect(formatAmount(1n)).toBe('0.000001')
    expect(formatAmount(1_000_000_000_000n)).toBe('1000000.00')
    expect(formatAmount(parseAmount('3.141592'))).toBe('3.141592')
  })
})

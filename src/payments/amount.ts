import { InvalidAmountError } from './errors.js'

/** USDC and the devnet token use 6 decimals. */
export const defaultDecimals = 6

const maxUint256 = 2n ** 256n - 1n

/**
 * Turns an amount into token units: a decimal string (`"12.50"`) is scaled by
 * `10^decimals`; a bigint is taken as units already. Zero, negative,
 * non-numeric and over-precise amounts are refused rather than rounded: a
 * silent rounding in a payment is a bug the buyer pays for.
 *
 * @example
 * parseAmount('12.50') // 12_500_000n
 * parseAmount(12_500_000n) // 12_500_000n
 */
export function parseAmount(amount: string | bigint, decimals: number = defaultDecimals): bigint {
  let units: bigint
  if (typeof amount === 'bigint') units = amount
  else if (typeof amount === 'string') {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(amount)
    if (!match) {
      const reason = /^\s*-/.test(amount)
        ? 'it is negative'
        : 'it is not a decimal number (digits, optionally one "." and more digits)'
      throw new InvalidAmountError({ amount, reason })
    }
    const whole = match[1] ?? '0'
    const fraction = match[2] ?? ''
    if (fraction.length > decimals)
      throw new InvalidAmountError({
        amount,
        reason: `it has ${fraction.length} decimal places; the token has ${decimals}`,
      })
    units = BigInt(whole + fraction.padEnd(decimals, '0'))
  } else
    throw new InvalidAmountError({
      amount,
      reason: `expected a decimal string or a bigint, got a ${typeof amount}`,
    })
  if (units < 0n) throw new InvalidAmountError({ amount, reason: 'it is negative' })
  if (units === 0n) throw new InvalidAmountError({ amount, reason: 'it is zero' })
  if (units > maxUint256) throw new InvalidAmountError({ amount, reason: 'it does not fit in uint256' })
  return units
}

/**
 * Formats token units as a decimal string with at least two decimals.
 *
 * @example
 * formatAmount(12_500_000n) // '12.50'
 */
export function formatAmount(units: bigint, decimals: number = defaultDecimals): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  let fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  if (fraction.length < 2) fraction = fraction.padEnd(Math.min(2, decimals), '0')
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

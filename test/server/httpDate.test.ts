import { expect, test } from 'vitest'
import { httpDate } from '../../src/server/httpDate.js'

test('httpDate is toUTCString for every weekday, month, padding and year the header meets', () => {
  // Every ~3 days and 7 hours over 60 years, then the edges of a few days and years.
  for (let ms = Date.UTC(1990, 0, 1); ms < Date.UTC(2050, 0, 1); ms += 3 * 86_400_000 + 7 * 3_600_000 + 61_000)
    expect(httpDate(ms)).toBe(new Date(ms).toUTCString())
  for (const ms of [0, Date.UTC(2000, 1, 29, 23, 59, 59), Date.UTC(2026, 11, 31, 23, 59, 59), Date.UTC(2027, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59)])
    expect(httpDate(ms)).toBe(new Date(ms).toUTCString())
  expect(httpDate(Date.UTC(1994, 10, 6, 8, 49, 37))).toBe('Sun, 06 Nov 1994 08:49:37 GMT')
})

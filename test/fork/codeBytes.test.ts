import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { codeBytes } from '../../src/node/fork/source.js'

describe('codeBytes (a cached contract code, decoded)', () => {
  it('gives the bytes hexToBytes gives, as a Uint8Array of its own, for code of any length and either case', () => {
    for (const hex of ['0x', '0x00', '0x6080604052', `0x${'aB'.repeat(600)}`, `0x${'0f'.repeat(24_576)}`] as const) {
      const bytes = codeBytes(hex)
      expect(bytes).toEqual(hexToBytes(hex))
      expect(bytes.constructor).toBe(Uint8Array)
      expect(bytes.byteOffset).toBe(0)
      expect(bytes.buffer.byteLength).toBe(bytes.length)
    }
  })

  it('leaves what is not even-length hex to hexToBytes: padded or refused as before', () => {
    expect(codeBytes('0x123')).toEqual(hexToBytes('0x123'))
    expect(() => codeBytes('0x12zz')).toThrow()
    expect(() => hexToBytes('0x12zz')).toThrow()
  })
})

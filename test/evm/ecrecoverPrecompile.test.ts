import { describe, expect, it } from 'vitest'
import { concatHex, hexToBytes, keccak256, numberToHex, pad, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevCommon } from '../../src/evm/common.js'
import { ecrecoverPrecompile } from '../../src/evm/ecrecoverPrecompile.js'
import { evmInternals } from '../../src/evm/evmInternals.js'
import { stockEngine } from './installEngine.js'

/*
 * The ECRECOVER precompile (ecrecoverPrecompile.ts) must answer exactly as
 * the library's precompile01 for valid, malformed and short/long inputs.
 */

const load = async () => {
  const url = new URL('./precompiles/01-ecrecover.js', import.meta.resolve('@ethereumjs/evm')).href
  return ((await import(url)) as { precompile01: (opts: unknown) => unknown }).precompile01
}

describe.skipIf(stockEngine)('ECRECOVER precompile', () => {
  it('is installed in the precompile tables', async () => {
    const library = await load()
    const { precompileEntries } = evmInternals.precompiles as { precompileEntries: { address: string; precompile: unknown }[] }
    const entry = precompileEntries.find((e) => e.address.endsWith('01') && /^0+1$/.test(e.address))!
    expect(entry.precompile).not.toBe(library)
    expect((entry.precompile as { name: string }).name).toBe('precompile01')
  })

  it('answers as the library for signed, malformed, short and long inputs and low gas', async () => {
    const library = await load()
    const fast = ecrecoverPrecompile(library as never)
    const common = createDevCommon(31337n, 'prague')
    const account = privateKeyToAccount(keccak256(toHex('ecrecover test')))
    const hash = keccak256(toHex('message'))
    const signature = await account.sign({ hash })
    const r = signature.slice(0, 66) as `0x${string}`
    const s = `0x${signature.slice(66, 130)}` as `0x${string}`
    const v = Number.parseInt(signature.slice(130), 16)
    const input = (vWord: `0x${string}`, rr = r, ss = s) => concatHex([hash, vWord, rr, ss])
    const cases: [string, `0x${string}`, bigint?][] = [
      ['valid', input(pad(numberToHex(v)))],
      ['other v', input(pad(numberToHex(v === 27 ? 28 : 27)))],
      ['v = 0', input(pad('0x0'))],
      ['v = 1', input(pad('0x1'))],
      ['v with high bits', input(`0x${'01'}${'00'.repeat(30)}${v.toString(16)}` as `0x${string}`)],
      ['r = 0', input(pad(numberToHex(v)), pad('0x0'))],
      ['s above the order', input(pad(numberToHex(v)), r, `0x${'ff'.repeat(32)}`)],
      ['long input', concatHex([input(pad(numberToHex(v))), '0xdeadbeef'])],
      ['short input', input(pad(numberToHex(v))).slice(0, 2 + 2 * 100) as `0x${string}`],
      ['only hash and v', concatHex([hash, pad(numberToHex(v))])],
      ['empty', '0x'],
      ['low gas', input(pad(numberToHex(v))), 2999n],
      ['exact gas', input(pad(numberToHex(v))), 3000n],
    ]
    for (const [name, data, gasLimit] of cases) {
      const opts = () => ({ data: hexToBytes(data), gasLimit: gasLimit ?? 100_000n, common })
      const expected = library(opts())
      expect(fast(opts() as never), name).toEqual(expected)
    }
    const valid = fast({ data: hexToBytes(cases[0]![1]), gasLimit: 100_000n, common } as never) as { returnValue: Uint8Array }
    expect(toHex(valid.returnValue)).toBe(pad(account.address.toLowerCase() as `0x${string}`))
  })
})

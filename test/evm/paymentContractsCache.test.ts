import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { buildPaymentContractsGenesis } from '../../src/evm/paymentContracts.js'
import { cachedPaymentContractsGenesis } from '../../src/evm/paymentContractsCache.js'
import { useTemporaryCacheDir } from './genesisCacheDir.js'

const owners = ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'] as const

describe('payment contracts genesis cache', () => {
  const { cacheFiles } = useTemporaryCacheDir()

  it('returns what buildPaymentContractsGenesis builds, then reads it back; ignores a tampered file', async () => {
    const common = createDevCommon(31337n, 'osaka')
    const expected = await buildPaymentContractsGenesis(common, { owners })
    expect(expected.map((a) => a.address).slice(0, 3)).toEqual([
      '0x2612261226122612261226122612261226122612',
      '0x7715771577157715771577157715771577157715',
      '0x1271127112711271127112711271127112711271',
    ])
    expect(await cachedPaymentContractsGenesis(common, { owners })).toEqual(expected)
    const [file] = cacheFiles()
    expect(await cachedPaymentContractsGenesis(common, { owners })).toEqual(expected)

    // An account moved elsewhere, or garbage, is not trusted: the alloc is built again.
    const text = readFileSync(file!, 'utf8')
    const moved = JSON.parse(text) as { entries: [string, unknown][] }
    moved.entries[3]![0] = '0x000000000000000000000000000000000000bEEF'
    writeFileSync(file!, JSON.stringify(moved))
    expect(await cachedPaymentContractsGenesis(common, { owners })).toEqual(expected)
    writeFileSync(file!, 'not json')
    expect(await cachedPaymentContractsGenesis(common, { owners })).toEqual(expected)
  })
})

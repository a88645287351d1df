import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { buildTokenGenesis, type TokenGenesisOptions } from '../../src/evm/token.js'
import { cachedTokenGenesis } from '../../src/evm/tokenGenesisCache.js'
import { useTemporaryCacheDir } from './genesisCacheDir.js'

const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const options: TokenGenesisOptions = {
  address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  name: 'USDC',
  symbol: 'USDC',
  owner,
  masterMinter: owner,
  pauser: owner,
  blacklister: owner,
  holders: [{ address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', units: 5_000_000n }],
}

describe('token genesis cache', () => {
  const { cacheFiles } = useTemporaryCacheDir()

  it('returns what buildTokenGenesis builds, first built and then read back from disk', async () => {
    const common = createDevCommon(31337n, 'prague')
    const expected = await buildTokenGenesis(common, options)
    expect(await cachedTokenGenesis(common, options)).toEqual(expected)
    const files = cacheFiles()
    expect(files).toHaveLength(1)
    expect(JSON.parse(readFileSync(files[0]!, 'utf8')).storage).toEqual(expected.storage)
    expect(await cachedTokenGenesis(common, options)).toEqual(expected)
  })

  it('keys the file on every input: another chain id or holder builds again', async () => {
    await cachedTokenGenesis(createDevCommon(31337n, 'prague'), options)
    await cachedTokenGenesis(createDevCommon(84532n, 'prague'), options)
    await cachedTokenGenesis(createDevCommon(31337n, 'prague'), { ...options, holders: [] })
    expect(cacheFiles()).toHaveLength(3)
  })

  it('ignores a corrupt or tampered file and builds the genesis', async () => {
    const common = createDevCommon(31337n, 'prague')
    const expected = await buildTokenGenesis(common, options)
    await cachedTokenGenesis(common, options)
    const [file] = cacheFiles()
    writeFileSync(file!, '{"storage":[["0x1","0x2"]]}')
    expect(await cachedTokenGenesis(common, options)).toEqual(expected)
    writeFileSync(file!, 'not json')
    expect(await cachedTokenGenesis(common, options)).toEqual(expected)
  })
})

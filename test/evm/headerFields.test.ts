import { createBlockHeader } from '@ethereumjs/block'
import { KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { bytesToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { headerFromData } from '../../src/evm/headerFields.js'
import { stockEngine } from './installEngine.js'

/*
 * headerFromData must give exactly the header createBlockHeader gives for the
 * same data and options (fields, their order, constants shared, hash,
 * frozenness, the Common copied), and leave to the library whatever it
 * does not take: then the outcome, a header or an error, is the library's.
 */

const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill)

/** Header data as sealBuiltBlock gives it on an Osaka (or Prague) chain. */
function sealData(): Record<string, unknown> {
  return {
    number: 7n,
    timestamp: 1_700_000_014n,
    gasLimit: 30_000_000n,
    coinbase: bytes(20, 0xc0),
    mixHash: bytes(32, 0x11),
    parentHash: bytes(32, 0x22),
    difficulty: 0n,
    nonce: new Uint8Array(8),
    extraData: new Uint8Array(),
    baseFeePerGas: 875_000_000n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: bytes(32, 0x33),
    stateRoot: bytes(32, 0x44),
    transactionsTrie: bytes(32, 0x55),
    withdrawalsRoot: undefined,
    receiptTrie: bytes(32, 0x66),
    logsBloom: bytes(256, 0x01),
    gasUsed: 51_234n,
    blobGasUsed: 0n,
    requestsHash: bytes(32, 0x77),
  }
}

function describeHeader(header: ReturnType<typeof createBlockHeader>) {
  const own = header as unknown as Record<string, unknown>
  return {
    keys: Object.keys(header).join(','),
    prototype: Object.getPrototypeOf(header),
    frozen: Object.isFrozen(header),
    values: Object.fromEntries(
      Object.entries(own)
        .filter(([key]) => key !== 'common' && key !== 'keccakFunction')
        .map(([key, value]) => [key, value instanceof Uint8Array ? bytesToHex(value) : value]),
    ),
    // The library's constants are shared (the same arrays), what was given is copied.
    uncleHashShared: header.uncleHash === KECCAK256_RLP_ARRAY,
    keccak: own.keccakFunction === header.common.customCrypto.keccak256,
    hardfork: header.common.hardfork(),
    hash: bytesToHex(header.hash()),
    json: header.toJSON(),
  }
}

describe.skipIf(stockEngine).each(['cancun', 'prague', 'osaka'])('headerFromData on %s', (hardfork) => {
  const common = createDevCommon(31337n, hardfork)
  const data = () => {
    const d = sealData()
    if (!common.isActivatedEIP(7685)) delete d.requestsHash
    return d
  }
  const options = [
    { putBlockIntoBlockchain: false, setHardfork: false, skipConsensusFormatValidation: true },
    { skipConsensusFormatValidation: false },
    { freeze: false },
  ]
  it.each(options)('equals the library header (%o)', (opts) => {
    const given = data()
    const fast = headerFromData(given as never, { ...opts, common } as never)
    const library = createBlockHeader(data() as never, { ...opts, common } as never)
    expect(describeHeader(fast)).toEqual(describeHeader(library))
    expect(fast.common).not.toBe(common)
    // Bytes given are copied, as toType copies them.
    expect(fast.parentHash).not.toBe(given.parentHash)
  })

  const declined: [string, (d: Record<string, unknown>) => void][] = [
    ['a missing base field (the library defaults it)', (d) => void delete d.gasLimit],
    ['a hex string field', (d) => void (d.number = '0x07')],
    ['a withdrawals root given', (d) => void (d.withdrawalsRoot = bytes(32, 0x99))],
    ['an EIP field missing', (d) => void delete d.excessBlobGas],
    ['an uncle hash given', (d) => void (d.uncleHash = bytes(32, 0x98))],
  ]
  it.each(declined)('leaves %s to the library: the same header', (_, change) => {
    const given = data()
    change(given)
    const other = data()
    change(other)
    const opts = { common, skipConsensusFormatValidation: true }
    expect(describeHeader(headerFromData(given as never, opts))).toEqual(describeHeader(createBlockHeader(other as never, opts)))
  })

  const refused: [string, (d: Record<string, unknown>) => void][] = [
    ['a short parent hash', (d) => void (d.parentHash = bytes(31, 1))],
    ['a negative number', (d) => void (d.number = -1n)],
    ['gas used above the limit', (d) => void (d.gasUsed = 30_000_001n)],
    ['a 19-byte coinbase', (d) => void (d.coinbase = bytes(19, 1))],
    ['a 7-byte nonce', (d) => void (d.nonce = bytes(7, 0))],
  ]
  it.each(refused)('refuses %s with the library error', (_, change) => {
    const given = data()
    change(given)
    let expected: unknown
    try {
      createBlockHeader(given as never, { common })
    } catch (error) {
      expected = (error as Error).message
    }
    expect(expected).toBeDefined()
    expect(() => headerFromData(given as never, { common })).toThrow(expected as string)
  })
})

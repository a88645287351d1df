import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeCallTx1559, fastCallTx1559, primeDataGas, type CallTxFields } from '../../src/evm/callTx.js'
import { createCallTx, freezeCallTx } from '../../src/evm/execute.js'
import { createDevCommon } from '../../src/evm/common.js'
import { stockEngine } from './installEngine.js'

/*
 * fastCallTx1559 must build exactly what `new FeeMarket1559Tx` builds for the
 * same call fields, and decline (undefined) wherever the library would throw.
 */

const to = hexToBytes('0x00000000000000000000000000000000000fee01')
const balanceOf = hexToBytes('0x70a082310000000000000000000000001111111111111111111111111111111111111111')
const base: CallTxFields = { nonce: 0n, gasLimit: 30_000_000n, to, value: 0n, data: balanceOf, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }

const cases: [string, Partial<CallTxFields>][] = [
  ['fee-less balanceOf', {}],
  ['value, fees, nonce', { value: 10n ** 18n, maxFeePerGas: 7n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, nonce: 41n }],
  ['empty data', { data: new Uint8Array(), gasLimit: 21_000n }],
  ['largest nonce accepted', { nonce: 2n ** 64n - 2n }],
  ['largest value', { value: 2n ** 256n - 1n }],
]

function describeTx(tx: object) {
  const t = tx as ReturnType<typeof createFeeMarket1559Tx>
  return {
    keys: Object.keys(tx).join(','),
    prototype: Object.getPrototypeOf(tx),
    frozen: Object.isFrozen(tx),
    chainId: t.chainId,
    hardfork: t.common.hardfork(),
    json: t.toJSON(),
    message: bytesToHex(t.getMessageToSign() as unknown as Uint8Array),
    hashed: bytesToHex(t.getHashedMessageToSign()),
    intrinsic: t.getIntrinsicGas(),
    upfront: t.getUpfrontCost(5n),
    priority: t.getEffectivePriorityFee(0n),
    supports: [1559, 2718, 2930, 4844, 7702].map((c) => t.supports(c)),
    to: t.to?.toString(),
    data: bytesToHex(t.data),
    accessList: t.accessList,
    signed: [t.v, t.r, t.s],
    separateCommon: t.common !== (t.txOptions as { common: unknown }).common,
  }
}

describe.skipIf(stockEngine).each(['prague', 'osaka'])('fastCallTx1559 on %s', (hardfork) => {
  const common = createDevCommon(31337n, hardfork)
  for (const freeze of [false, true]) {
    it.each(cases)(`%s (freeze ${freeze}) equals the library's transaction`, (_, change) => {
      const fields = { ...base, ...change }
      if (hardfork === 'osaka' && fields.gasLimit > 16_777_216n) fields.gasLimit = 16_777_216n
      const options = { common, freeze, allowUnlimitedInitCodeSize: false }
      const fast = fastCallTx1559(fields, options)
      expect(fast).toBeDefined()
      const library = createFeeMarket1559Tx({ ...fields, accessList: [] }, options)
      expect(describeTx(fast!)).toEqual(describeTx(library))
    })
  }

  const declined: [string, Partial<CallTxFields>][] = [
    ['no recipient', { to: undefined }],
    ['nonce 2^64-1', { nonce: 2n ** 64n - 1n }],
    ['gas limit above 64 bits', { gasLimit: 2n ** 64n }],
    ['value above 256 bits', { value: 2n ** 256n }],
    ['tip above fee cap', { maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }],
    ['gas × fee overflow', { gasLimit: 2n ** 63n, maxFeePerGas: 2n ** 250n }],
  ]
  if (hardfork === 'osaka') declined.push(['gas limit above the EIP-7825 cap', { gasLimit: 16_777_217n }])
  it.each(declined)('declines %s, where the library throws or differs', (_, change) => {
    const fields = { ...base, ...change }
    const options = { common, freeze: false, allowUnlimitedInitCodeSize: false }
    expect(fastCallTx1559(fields, options)).toBeUndefined()
    if (fields.to !== undefined) expect(() => createFeeMarket1559Tx(fields, options)).toThrow()
  })
})

/*
 * encodeCallTx1559 must write exactly the bytes the library's serialize()
 * computes (EIP2718.serialize over raw()), and decline what it does not cover.
 */
describe.skipIf(stockEngine)('encodeCallTx1559', () => {
  const common = createDevCommon(31337n, 'osaka')
  const library = (tx: ReturnType<typeof createFeeMarket1559Tx>) => bytesToHex(Uint8Array.of(2, ...RLP.encode(tx.raw() as never)))
  const data = (length: number, first = 0xab) => Uint8Array.from({ length }, (_, i) => (i === 0 ? first : i & 0xff))
  const encoded: [string, Partial<CallTxFields>][] = [
    ...cases,
    ['one data byte below 0x80', { data: Uint8Array.of(0x7f) }],
    ['one data byte 0x80', { data: Uint8Array.of(0x80) }],
    ['one zero data byte', { data: Uint8Array.of(0) }],
    ['55 data bytes', { data: data(55) }],
    ['56 data bytes', { data: data(56) }],
    ['255 and 256 data bytes', { data: data(256) }],
    ['70,000 data bytes (a three-byte length)', { data: data(70_000), gasLimit: 16_000_000n }],
    ['integers at one-byte edges', { nonce: 0x7fn, value: 0x80n, maxFeePerGas: 0x100n, maxPriorityFeePerGas: 0xffn, gasLimit: 0x7fn }],
    ['a short list (no data, zero fields)', { data: new Uint8Array(), gasLimit: 0n }],
  ]
  it.each(encoded)('%s: the library\'s bytes', (_, change) => {
    const fields = { ...base, ...change }
    if (fields.gasLimit > 16_777_216n) fields.gasLimit = 16_777_216n
    const tx = fastCallTx1559(fields, { common, freeze: false })!
    expect(bytesToHex(encodeCallTx1559(tx)!)).toBe(library(tx))
  })

  it('a gas limit lifted past the EIP-7825 cap after construction (a simulated call) is written as set', () => {
    const tx = fastCallTx1559({ ...base, gasLimit: 16_777_216n }, { common, freeze: false })!
    ;(tx as { gasLimit: bigint }).gasLimit = 50_000_000n
    ;(tx as { nonce: bigint }).nonce = 2n ** 64n - 1n
    expect(bytesToHex(encodeCallTx1559(tx)!)).toBe(library(tx))
  })

  it('a library-built unsigned transaction gets the same bytes', () => {
    const tx = createFeeMarket1559Tx({ ...base, gasLimit: 100_000n, accessList: [] }, { common })
    expect(bytesToHex(encodeCallTx1559(tx)!)).toBe(library(tx))
  })

  it('declines a signed transaction and one with an access list', () => {
    const signed = createFeeMarket1559Tx({ ...base, gasLimit: 100_000n }, { common }).sign(hexToBytes(`0x${'11'.repeat(32)}`))
    expect(encodeCallTx1559(signed)).toBeUndefined()
    const listed = createFeeMarket1559Tx({ ...base, gasLimit: 100_000n, accessList: [{ address: bytesToHex(to), storageKeys: [] }] }, { common })
    expect(encodeCallTx1559(listed)).toBeUndefined()
  })

  it('freezeCallTx freezes, and the frozen call serializes and hashes as the library computes', () => {
    const tx = freezeCallTx(createCallTx(common, { from: `0x${'22'.repeat(20)}`, to: bytesToHex(to), data: bytesToHex(balanceOf), maxFeePerGas: 9n }, { nonce: 3n, gas: 60_000n }))
    expect(Object.isFrozen(tx)).toBe(true)
    expect(bytesToHex(tx.serialize())).toBe(library(tx as never))
    expect(bytesToHex(tx.hash())).toBe(keccak256(library(tx as never)))
    // serialize() answers a copy: writing into it changes nothing.
    tx.serialize().fill(0)
    expect(bytesToHex(tx.serialize())).toBe(library(tx as never))
  })
})

/* primeDataGas must leave in tx.cache exactly what the library's first getDataGas() leaves in a frozen transaction. */
describe.skipIf(stockEngine).each(['prague', 'osaka'])('primeDataGas on %s', (hardfork) => {
  const common = createDevCommon(31337n, hardfork)
  const datas: [string, Uint8Array][] = [
    ['a token transfer', hexToBytes('0xa9059cbb000000000000000000000000111111111111111111111111111111111111111100000000000000000000000000000000000000000000000000000000000f4240')],
    ['no data', new Uint8Array()],
    ['zeros only', new Uint8Array(40)],
    ['non-zero only', new Uint8Array(33).fill(7)],
  ]
  it.each(datas)('%s', (_, data) => {
    const fields = { ...base, data, gasLimit: 1_000_000n }
    const primed = fastCallTx1559(fields, { common, freeze: true })!
    primeDataGas(primed)
    const library = createFeeMarket1559Tx({ ...fields, accessList: [] }, { common, freeze: true })
    const libraryGas = library.getDataGas()
    expect((primed as unknown as { cache: unknown }).cache).toEqual((library as unknown as { cache: unknown }).cache)
    expect(primed.getDataGas()).toBe(libraryGas)
    expect(primed.getIntrinsicGas()).toBe(library.getIntrinsicGas())
  })

  it('leaves an unfrozen transaction alone', () => {
    const tx = fastCallTx1559({ ...base, gasLimit: 1_000_000n }, { common, freeze: false })!
    primeDataGas(tx)
    expect((tx as unknown as { cache: { dataFee?: unknown } }).cache.dataFee).toBeUndefined()
  })
})

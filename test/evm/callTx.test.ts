import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { bytesToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { fastCallTx1559, type CallTxFields } from '../../src/evm/callTx.js'
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

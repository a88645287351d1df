import { describe, expect, it } from 'vitest'
import { privateKeyToAccount } from 'viem/accounts'
import { createDevCommon } from '../../src/evm/common.js'
import { decodeRawTx } from '../../src/evm/rawTx.js'
import { signedOfEveryType } from './generators.js'

const common = createDevCommon(31337n, 'osaka')
const keys = [`0x${'11'.repeat(32)}`, `0x${'ab'.repeat(32)}`, `0x${'7f'.repeat(32)}`] as const

describe('sender address of decoded transactions', () => {
  it('is the signer, for every transaction type, and the same on the second call', async () => {
    for (const key of keys) {
      const account = privateKeyToAccount(key)
      const signed = await signedOfEveryType(account)
      for (const raw of signed) {
        const tx = decodeRawTx(Buffer.from(raw.slice(2), 'hex'), common)
        expect(tx.getSenderAddress().toString()).toBe(account.address.toLowerCase())
        expect(tx.getSenderAddress().toString()).toBe(account.address.toLowerCase())
      }
    }
  })

})

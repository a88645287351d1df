import { RLP } from '@ethereumjs/rlp'
import { createTx } from '@ethereumjs/tx'
import { keccak256 } from 'viem/utils'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import { engineModeOf } from '../../src/evm/patches/registry.js'
import { decodeRawTx } from '../../src/evm/rawTx.js'
import { signedOfEveryType } from './generators.js'

const common = createDevCommon(31337n, 'osaka')
const account = privateKeyToAccount(`0x${'11'.repeat(32)}`)
const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))

const everyType = () =>
  signedOfEveryType(account, { data: '0xdeadbeef', accessList: [{ address: account.address, storageKeys: [`0x${'01'.repeat(32)}`] }] })

/** The encoding ethereumjs computes from the fields, without the memo. */
function encodedFromFields(tx: ReturnType<typeof decodeRawTx>): Uint8Array {
  const body = RLP.encode(tx.raw() as never)
  return tx.type === 0 ? body : Uint8Array.of(tx.type, ...body)
}

describe('serialized form of decoded transactions', () => {
  it('is the decoded bytes, equal to the encoding of the fields, for every type; the hash is their keccak', async () => {
    for (const raw of await everyType()) {
      const tx = decodeRawTx(hexBytes(raw), common)
      expect(Buffer.from(tx.serialize()).toString('hex')).toBe(raw.slice(2))
      expect(tx.serialize()).toEqual(encodedFromFields(tx))
      expect(`0x${Buffer.from(tx.hash()).toString('hex')}`).toBe(keccak256(raw))
    }
  })

  it('answers a fresh copy: writing into one result or the input changes nothing else', async () => {
    const [raw] = await everyType()
    const input = hexBytes(raw!)
    const tx = decodeRawTx(input, common)
    const first = tx.serialize()
    first.fill(0)
    input.fill(0)
    expect(Buffer.from(tx.serialize()).toString('hex')).toBe(raw!.slice(2))
  })

  it('is never taken from a non-canonical input: ethereumjs rejects those bytes', async () => {
    const raw = hexBytes((await everyType())[2]!)
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[]
    // The nonce (3) with a leading zero byte.
    const padded = [...fields]
    padded[1] = Uint8Array.of(0, 3)
    expect(() => decodeRawTx(Uint8Array.of(2, ...RLP.encode(padded)), common)).toThrow(/leading zeroes/)
    // A one-byte value below 0x80 written as a one-byte string (0x81 0x03) instead of itself.
    const body = RLP.encode(fields)
    const at = body.indexOf(0x03, 3)
    const longForm = Uint8Array.of(...body.subarray(0, at), 0x81, ...body.subarray(at))
    expect(body[0]).toBe(0xf8) // a list over 55 bytes: 0xf8 <length>
    longForm[1]! += 1
    expect(() => decodeRawTx(Uint8Array.of(2, ...longForm), common)).toThrow(/single byte < 0x80 are not prefixed/)
    // Trailing bytes after the list.
    expect(() => decodeRawTx(Uint8Array.of(...raw, 0), common)).toThrow()
  })
})

describe('serialized form of transactions built from fields', () => {
  const fields = { to: account.address, value: 5n, nonce: 3n, gasLimit: 60_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, data: '0xdeadbeef' } as const

  it('a frozen one keeps its first encoding: equal to the fields\' encoding at every call, a fresh copy each time', () => {
    const tx = createTx({ type: 2, ...fields }, { common })
    expect(Object.isFrozen(tx)).toBe(true)
    const first = tx.serialize()
    expect(first).toEqual(encodedFromFields(tx as never))
    first.fill(0)
    const second = tx.serialize()
    expect(second).toEqual(encodedFromFields(tx as never))
    expect(second).not.toBe(tx.serialize())
  })

  // Stock @ethereumjs encodes again at every call.
  it.skipIf(engineModeOf() === 'stock')('a frozen one is encoded once: later calls answer the kept bytes', () => {
    const tx = createTx({ type: 2, ...fields }, { common })
    const first = tx.serialize()
    // Like the library's hash of a frozen transaction (tx.cache.hash), the memo takes the fields as final: a
    // write into the data array (which freezing cannot stop) does not show.
    tx.data[0] = 0
    expect(tx.serialize()).toEqual(first)
  })

  it('an unfrozen one is encoded again at every call, so a changed field shows', () => {
    const tx = createTx({ type: 2, ...fields }, { common, freeze: false })
    const before = tx.serialize()
    ;(tx as { nonce: bigint }).nonce = 4n
    const after = tx.serialize()
    expect(after).not.toEqual(before)
    expect(after).toEqual(encodedFromFields(tx as never))
  })
})

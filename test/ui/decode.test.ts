/** The page's decoders (src/ui/page/decode.ts), checked against viem's encoders. */
import { encodeAbiParameters, encodeErrorResult, pad, parseAbi, toEventSelector } from 'viem'
import { describe, expect, test } from 'vitest'
import { decodeEvent, formatUnits, functionName, revertReason } from '../../src/ui/page/decode.js'

const log = (topics: string[], data = '0x') => ({
  address: '0x3009300930093009300930093009300930093009',
  topics,
  data,
  blockNumber: '0x1',
  blockHash: '0x01',
  transactionHash: '0x02',
  logIndex: '0x0',
})
const a = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const b = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
const nonce = `0x${'ab'.repeat(32)}`

describe('decodeEvent', () => {
  test('default: the token events, by their topics', () => {
    const transfer = log([toEventSelector('Transfer(address,address,uint256)'), pad(a), pad(b)], encodeAbiParameters([{ type: 'uint256' }], [12_500_000n]))
    expect(decodeEvent(transfer)).toEqual({ kind: 'Transfer', from: a, to: b, value: 12_500_000n })
    expect(decodeEvent(log([toEventSelector('AuthorizationUsed(address,bytes32)'), pad(a), nonce]))).toEqual({ kind: 'AuthorizationUsed', authorizer: a, nonce })
    expect(decodeEvent(log([toEventSelector('AuthorizationCanceled(address,bytes32)'), pad(a), nonce]))).toEqual({ kind: 'AuthorizationCanceled', authorizer: a, nonce })
    expect(decodeEvent(log([toEventSelector('Pause()')]))).toEqual({ kind: 'other', topic: toEventSelector('Pause()') })
  })
})

describe('revertReason', () => {
  test('default: Error(string) data to its text; anything else undefined', () => {
    const data = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['FiatTokenV2: authorization is expired'] })
    expect(revertReason(data)).toBe('FiatTokenV2: authorization is expired')
    expect(revertReason('0x4e487b710000000000000000000000000000000000000000000000000000000000000011')).toBeUndefined()
    expect(revertReason(undefined)).toBeUndefined()
  })
})

describe('formatUnits', () => {
  test('default: grouped whole part, trimmed fraction', () => {
    expect([formatUnits(12_500_000n, 6), formatUnits(1_000_000_000_000n, 6), formatUnits(1n, 18), formatUnits(0n, 6)]).toEqual([
      '12.5',
      '1,000,000',
      '0.000000000000000001',
      '0',
    ])
    expect(functionName('0xef55bec6' + '00'.repeat(32))).toBe('receiveWithAuthorization')
    expect(functionName('0x12345678')).toBe('0x12345678')
  })
})

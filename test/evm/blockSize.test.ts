import { createBlock } from '@ethereumjs/block'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { blockSize } from '../../src/evm/blockSize.js'
import { createDevCommon } from '../../src/evm/common.js'
import { stockEngine } from './installEngine.js'

/*
 * blockSize must give block.serialize().length for every shape of block: no
 * transactions, each transaction type, calldata that takes the lengths over
 * the RLP prefix boundaries (55 and 255 bytes), withdrawals.
 */

const common = createDevCommon(31337n, 'prague')
const to = hexToBytes('0x00000000000000000000000000000000000fee01')
const key = hexToBytes(`0x${'11'.repeat(32)}`)
const data = (length: number) => new Uint8Array(length).fill(0xab)
const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }
const accessList = [{ address: '0x00000000000000000000000000000000000fee02', storageKeys: [`0x${'00'.repeat(31)}01`] }]

function txOf(type: number, length: number, signed: boolean) {
  const fields: Record<string, unknown> = { type, to, data: data(length), gasLimit: 1_000_000n, nonce: BigInt(length) }
  if (type === 0) fields.gasPrice = 10n ** 10n
  if (type === 1) Object.assign(fields, { gasPrice: 10n ** 10n, accessList })
  if (type === 2) Object.assign(fields, fees, { accessList })
  if (type === 3) Object.assign(fields, fees, { maxFeePerBlobGas: 1n, blobVersionedHashes: [`0x01${'22'.repeat(31)}`] })
  if (type === 4) Object.assign(fields, fees, { authorizationList: [{ chainId: '0x7a69', address: '0x00000000000000000000000000000000000fee03', nonce: '0x0', yParity: '0x0', r: '0x01', s: '0x02' }] })
  const tx = createTx(fields as never, { common })
  return signed ? tx.sign(key) : tx
}

function blockOf(txs: ReturnType<typeof txOf>[], withdrawals = 0) {
  return createBlock(
    {
      header: { number: 7n, gasLimit: 30_000_000n, timestamp: 1_700_000_000n, baseFeePerGas: 7n, excessBlobGas: 0n, blobGasUsed: 0n, parentBeaconBlockRoot: new Uint8Array(32), requestsHash: new Uint8Array(32) },
      transactions: txs,
      withdrawals: Array.from({ length: withdrawals }, (_, i) => ({ index: BigInt(i), validatorIndex: 3n, address: '0x00000000000000000000000000000000000fee04', amount: 10n ** 9n })),
    },
    { common, skipConsensusFormatValidation: true },
  )
}

describe.skipIf(stockEngine)('blockSize', () => {
  it('equals the length of the block encoding', () => {
    const blocks = [
      blockOf([]),
      blockOf([], 3),
      ...[0, 1, 2, 3, 4].flatMap((type) => [0, 1, 20, 40, 60, 200, 300].map((n) => blockOf([txOf(type, n, n % 2 === 0)]))),
      blockOf(Array.from({ length: 100 }, (_, i) => txOf(i % 5, i * 3, i % 3 === 0)), 2),
    ]
    for (const block of blocks) {
      expect(blockSize(block)).toBe(block.serialize().length)
      // With the header's encoding passed in (eth_simulateV1 hashes it first).
      expect(blockSize(block, block.header.serialize())).toBe(block.serialize().length)
    }
  })
})

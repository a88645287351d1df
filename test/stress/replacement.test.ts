import { type Hex, keccak256, parseGwei, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startTestDevnet } from '../utils.js'

/**
 * Same-nonce replacement and nonce gaps as geth's pool has them (issue 15):
 * a replacement must raise both the fee cap and the tip by at least 10%
 * (geth's default price bump), anything less is refused with -32000
 * `replacement transaction underpriced`; a transaction behind a nonce gap is
 * held (queued) across seals and mined once the gap is filled.
 */

let t: Awaited<ReturnType<typeof startTestDevnet>>
const signer = privateKeyToAccount(keccak256(toHex('devnet replacement sender')))
const from = signer.address.toLowerCase()
let snapshot: string

beforeAll(async () => {
  t = await startTestDevnet()
  await t.rpc('anvil_setBalance', [signer.address, toHex(10n ** 20n)])
  await t.rpc('devnet_seal')
})
afterAll(async () => {
  await t.devnet.close()
})
beforeEach(async () => {
  if (snapshot) await t.rpc('evm_revert', [snapshot])
  snapshot = (await t.rpc('evm_snapshot')).result
})

const sign = (nonce: number, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint, value = 1n) =>
  signer.signTransaction({
    chainId: t.devnet.chain.id, type: 'eip1559', to: '0x000000000000000000000000000000000000beef', value, nonce,
    gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas,
  })
const send = async (raw: Hex) => t.rpc('eth_sendRawTransaction', [raw])
const fee = parseGwei('10')
const tip = parseGwei('2')

describe('eth_sendRawTransaction: same-nonce replacement', () => {
  test('error: equal or too small a bump is underpriced; 10% on both fields replaces', async () => {
    const original = await send(await sign(0, fee, tip))
    expect(original.error).toBeUndefined()

    const underpriced = { code: -32000, message: 'replacement transaction underpriced' }
    // Same fees, another transaction (different value).
    expect((await send(await sign(0, fee, tip, 2n))).error).toEqual(underpriced)
    // 9% on both.
    expect((await send(await sign(0, (fee * 109n) / 100n, (tip * 109n) / 100n))).error).toEqual(underpriced)
    // 10% on the fee cap only, then on the tip only.
    expect((await send(await sign(0, (fee * 110n) / 100n, tip))).error).toEqual(underpriced)
    expect((await send(await sign(0, fee, (tip * 110n) / 100n))).error).toEqual(underpriced)
    // The very same transaction again.
    expect((await send(await sign(0, fee, tip))).error).toEqual({ code: -32000, message: 'already known' })

    // Exactly 10% on both replaces it.
    const bumpedRaw = await sign(0, (fee * 110n) / 100n, (tip * 110n) / 100n)
    const bumped = await send(bumpedRaw)
    expect(bumped.error).toBeUndefined()
    expect((await t.rpc('eth_getTransactionByHash', [original.result])).result).toBeNull()
    const content = (await t.rpc('txpool_content')).result
    expect(Object.keys(content.pending[from])).toEqual(['0'])
    expect(content.pending[from]['0'].hash).toBe(bumped.result)
    // The replaced one cannot come back under the replacement.
    expect((await send(await sign(0, fee, tip))).error).toEqual(underpriced)
    expect((await t.rpc('eth_getTransactionCount', [signer.address, 'pending'])).result).toBe('0x1')

    await t.rpc('devnet_seal')
    expect((await t.rpc('eth_getTransactionReceipt', [bumped.result])).result.status).toBe('0x1')
    expect((await t.rpc('eth_getTransactionReceipt', [original.result])).result).toBeNull()
    const block = (await t.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(block.transactions).toEqual([bumped.result])
    // Once mined, the nonce is used: a higher fee no longer replaces.
    expect((await send(await sign(0, fee * 2n, tip * 2n))).error).toMatchObject({ code: -32000, message: expect.stringMatching(/^nonce too low/) })
  })

  test('behavior: a replacement of a queued transaction (behind a gap) keeps its place', async () => {
    const first = await send(await sign(1, fee, tip))
    const second = await send(await sign(1, fee * 2n, tip * 2n))
    expect(second.error).toBeUndefined()
    let content = (await t.rpc('txpool_content')).result
    expect(content.queued[from]['1'].hash).toBe(second.result)
    await send(await sign(0, fee, tip))
    await t.rpc('devnet_seal')
    expect((await t.rpc('eth_getTransactionReceipt', [first.result])).result).toBeNull()
    expect((await t.rpc('eth_getTransactionReceipt', [second.result])).result.status).toBe('0x1')
    content = (await t.rpc('txpool_content')).result
    expect(content).toEqual({ pending: {}, queued: {} })
  })
})

describe('eth_sendRawTransaction: nonce gaps', () => {
  test('behavior: a later nonce is held (queued) across seals and mined in order when the gap fills', async () => {
    const later = [await send(await sign(2, fee, tip)), await send(await sign(3, fee, tip))].map((r) => r.result as Hex)
    // Held: queued in the pool, not pre-confirmed, not mined by ticks or seals.
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x0', queued: '0x2' })
    expect(Object.keys((await t.rpc('txpool_content')).result.queued[from])).toEqual(['2', '3'])
    await t.rpc('devnet_preconfirm')
    await t.rpc('devnet_seal')
    await t.rpc('devnet_seal')
    expect((await t.rpc('eth_getTransactionReceipt', [later[0]])).result).toBeNull()
    // The pending count stops at the gap, as geth's pool nonce does.
    expect((await t.rpc('eth_getTransactionCount', [signer.address, 'pending'])).result).toBe('0x0')
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x0', queued: '0x2' })

    const zero = (await send(await sign(0, fee, tip))).result as Hex
    // Half filled: nonce 1 still missing, 2 and 3 stay queued.
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x1', queued: '0x2' })
    const one = (await send(await sign(1, fee, tip))).result as Hex
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x4', queued: '0x0' })
    expect((await t.rpc('eth_getTransactionCount', [signer.address, 'pending'])).result).toBe('0x4')
    await t.rpc('devnet_seal')
    const block = (await t.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(block.transactions).toEqual([zero, one, ...later])
    expect((await t.rpc('eth_getTransactionCount', [signer.address, 'latest'])).result).toBe('0x4')
  })
})

describe('eth_sendRawTransaction: fee cap overtaken by the base fee', () => {
  test('behavior: the transaction waits in the pool (not dropped) and is mined once the base fee falls back', async () => {
    const baseFee = BigInt((await t.rpc('eth_getBlockByNumber', ['pending', false])).result.baseFeePerGas)
    // Enough for the base fee at admission, not for the next blocks'.
    const cap = baseFee + 1n
    const low = (await send(await sign(0, cap, 1n))).result as Hex
    const next = (await send(await sign(1, fee * 10n, tip))).result as Hex
    await t.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(cap * 4n)])
    await t.rpc('devnet_seal')
    await t.rpc('devnet_seal')
    expect((await t.rpc('eth_getBlockByNumber', ['latest', false])).result.baseFeePerGas).not.toBe(toHex(baseFee))
    // Still there (geth keeps it), and it holds back the sender's next nonce.
    expect((await t.rpc('eth_getTransactionReceipt', [low])).result).toBeNull()
    expect((await t.rpc('eth_getTransactionByHash', [low])).result.hash).toBe(low)
    expect(t.devnet.node.dropped.map((d) => d.hash)).not.toContain(low)
    expect((await t.rpc('eth_getTransactionReceipt', [next])).result).toBeNull()
    expect((await t.rpc('eth_getTransactionCount', [signer.address, 'pending'])).result).toBe('0x2')

    await t.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(baseFee)])
    await t.rpc('devnet_seal')
    const block = (await t.rpc('eth_getBlockByNumber', ['latest', false])).result
    expect(block.transactions).toEqual([low, next])
  })
})

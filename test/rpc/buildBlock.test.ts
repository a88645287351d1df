import { parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

// testing_buildBlockV1 on the dev chain: the payload devnet would seal, built
// without sealing it.
let devnet: Devnet
const request = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })
const zero32 = `0x${'00'.repeat(32)}`

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
})
afterAll(async () => {
  await devnet.close()
})

const transfer = (nonce: number) =>
  privateKeyToAccount(devnet.accounts[0]!.privateKey).signTransaction({
    chainId: devnet.chain.id, type: 'eip1559', to: devnet.accounts[1]!.address, value: parseEther('1'),
    nonce, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })

describe('testing_buildBlockV1', () => {
  test('from the pool: the same block devnet then seals, and the chain does not move meanwhile', async () => {
    const hash = await request('eth_sendRawTransaction', [await transfer(0)])
    const head = await request('eth_getBlockByNumber', ['latest', false])
    const timestamp = BigInt(head.timestamp) + 12n
    const attributes = {
      timestamp: `0x${timestamp.toString(16)}`,
      prevRandao: zero32,
      suggestedFeeRecipient: `0x${'00'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: zero32,
    }
    const built = await request('testing_buildBlockV1', [head.hash, attributes, null, '0x'])
    expect(built.executionPayload.transactions).toHaveLength(1)
    expect(BigInt(built.blockValue)).toBe(21_000n * parseGwei('1'))
    expect(built.executionRequests).toEqual([])
    // Nothing changed: head, pool, pending block.
    expect((await request('eth_getBlockByNumber', ['latest', false])).hash).toBe(head.hash)
    expect((await request('txpool_status')).pending).toBe('0x1')

    await request('evm_setNextBlockTimestamp', [Number(timestamp)])
    await devnet.seal()
    const sealed = await request('eth_getBlockByNumber', ['latest', false])
    expect(sealed.transactions).toEqual([hash])
    expect(built.executionPayload.stateRoot).toBe(sealed.stateRoot)
    expect(built.executionPayload.receiptsRoot).toBe(sealed.receiptsRoot)
    expect(built.executionPayload.blockHash).toBe(sealed.hash)
  })

  test('explicit transactions are included as given; a wrong nonce is refused with geth\'s words', async () => {
    const head = await request('eth_getBlockByNumber', ['latest', false])
    const attributes = { timestamp: `0x${(BigInt(head.timestamp) + 1n).toString(16)}`, prevRandao: zero32, suggestedFeeRecipient: devnet.accounts[5]!.address, withdrawals: [], parentBeaconBlockRoot: zero32 }
    const empty = await request('testing_buildBlockV1', [head.hash, attributes, [], '0x1234'])
    expect(empty.executionPayload).toMatchObject({ transactions: [], gasUsed: '0x0', extraData: '0x1234', feeRecipient: devnet.accounts[5]!.address.toLowerCase() })
    await expect(request('testing_buildBlockV1', [head.hash, attributes, [await transfer(7)], '0x'])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('nonce too high'),
    })
    const one = await request('testing_buildBlockV1', [head.hash, attributes, [await transfer(1)], '0x'])
    expect(one.executionPayload.gasUsed).toBe('0x5208')
    // On an older parent too.
    const genesis = await request('eth_getBlockByNumber', ['0x0', false])
    const old = await request('testing_buildBlockV1', [genesis.hash, { ...attributes, timestamp: `0x${(BigInt(genesis.timestamp) + 1n).toString(16)}` }, [await transfer(0)], '0x'])
    expect(old.executionPayload.blockNumber).toBe('0x1')
  })

  test('bad parameters', async () => {
    const head = await request('eth_getBlockByNumber', ['latest', false])
    await expect(request('testing_buildBlockV1', [`0x${'11'.repeat(32)}`, { timestamp: '0x1', prevRandao: zero32, suggestedFeeRecipient: `0x${'00'.repeat(20)}` }])).rejects.toMatchObject({ code: -32000 })
    await expect(request('testing_buildBlockV1', [head.hash, { prevRandao: zero32 }])).rejects.toMatchObject({ code: -32602 })
    await expect(request('testing_buildBlockV1', [head.hash, { timestamp: head.timestamp, prevRandao: zero32, suggestedFeeRecipient: `0x${'00'.repeat(20)}` }, []])).rejects.toMatchObject({ code: -32000 })
  })
})

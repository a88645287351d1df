import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type Hex,
  createPublicClient,
  custom,
  decodeFunctionResult,
  encodeErrorResult,
  encodeFunctionData,
  pad,
  parseEther,
  parseGwei,
  parseSignature,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, ProviderRpcError, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'
import { balanceSlot } from '../../src/evm/tokenSlots.js'
import { tokenAbi } from '../../src/payments/abi.js'
import { createAuthorization, toTypedData } from '../../src/payments/authorize.js'
import { readTokenDomain } from '../../src/payments/domain.js'

let devnet: Devnet
const zeroHash = `0x${'00'.repeat(32)}`

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
})
afterAll(async () => {
  await devnet.close()
})

const simulate = (payload: unknown, block: unknown = 'latest') =>
  devnet.request<LooseRpc>({ method: 'eth_simulateV1', params: [payload, block] }) as Promise<any[]>

/** The JSON-RPC error a request fails with. */
async function rpcError(payload: unknown, block: unknown = 'latest') {
  try {
    await simulate(payload, block)
  } catch (error) {
    if (error instanceof ProviderRpcError) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected an error')
}

const a = (i: number) => devnet.accounts[i]!.address.toLowerCase() as Hex

describe('eth_simulateV1', () => {
  test('default: a transfer in one block on top of latest', async () => {
    const head = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', false] }))!
    const [block] = await simulate({ blockStateCalls: [{ calls: [{ from: a(0), to: a(1), value: '0x1' }] }] })
    expect(block.number).toBe(toHex(BigInt(head.number!) + 1n))
    expect(block.parentHash).toBe(head.hash)
    // The dev chain steps simulated blocks by its block time (2 s), as reth does on Base.
    expect(BigInt(block.timestamp) - BigInt(head.timestamp)).toBe(2n)
    // Base's node does not compute simulated state roots.
    expect(block.stateRoot).toBe(zeroHash)
    expect(block.baseFeePerGas).toBe('0x0')
    expect(block.calls).toEqual([{ status: '0x1', returnData: '0x', gasUsed: '0x5208', maxUsedGas: '0x5208', logs: [] }])
    expect(block.transactions).toHaveLength(1)
    // Nothing was written: the chain and the balances are unchanged.
    expect(await devnet.request({ method: 'eth_blockNumber' })).toBe(head.number)
    expect(await devnet.request({ method: 'eth_getBalance', params: [a(1), 'latest'] })).toBe(toHex(parseEther('10000')))
  })

  test('behavior: a later block reads the hash of an earlier simulated block', async () => {
    // BLOCKHASH(NUMBER - 1), returned as one word.
    const code = '0x600143034060005260206000f3'
    const reader = '0x00000000000000000000000000000000000b10c4'
    const blocks = await simulate({
      blockStateCalls: [
        { stateOverrides: { [reader]: { code } }, calls: [{ from: a(0), to: reader }] },
        { calls: [{ from: a(0), to: reader }] },
      ],
    })
    expect(blocks).toHaveLength(2)
    expect(blocks[1].parentHash).toBe(blocks[0].hash)
    expect(blocks[1].calls[0].returnData).toBe(blocks[0].hash)
    expect(blocks[0].calls[0].returnData).toBe(blocks[0].parentHash)
  })

  test('behavior: state overrides persist into later blocks, gaps are filled, numbers and times increase', async () => {
    const head = BigInt(await devnet.request({ method: 'eth_blockNumber' }))
    const poor = '0x00000000000000000000000000000000000000aa'
    const blocks = await simulate({
      blockStateCalls: [
        { stateOverrides: { [poor]: { balance: toHex(parseEther('1')) } } },
        { blockOverrides: { number: toHex(head + 4n) }, calls: [{ from: poor, to: a(2), value: toHex(parseEther('1')) }] },
      ],
    })
    expect(blocks.map((b) => BigInt(b.number))).toEqual([head + 1n, head + 2n, head + 3n, head + 4n])
    expect(blocks.map((b) => b.calls.length)).toEqual([0, 0, 0, 1])
    expect(blocks[3].calls[0].status).toBe('0x1')
    const times = blocks.map((b) => BigInt(b.timestamp))
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([2n, 2n, 2n])
  })

  test('behavior: traceTransfers turns value moves into ERC-20 Transfer logs from 0xeeee…', async () => {
    // Forwards its whole call value to the address in calldata, then emits LOG0.
    const forwarder = '0x00000000000000000000000000000000000f0a4d'
    const code = '0x6000600060006000346000355af150600080a000'
    const [block] = await simulate({
      traceTransfers: true,
      blockStateCalls: [
        {
          stateOverrides: { [forwarder]: { code } },
          calls: [
            { from: a(0), to: a(1), value: '0x5' },
            { from: a(0), to: forwarder, value: '0x7', input: pad(a(3)) },
          ],
        },
      ],
    })
    const [first, second] = block.calls
    const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
    expect(first.logs).toHaveLength(1)
    expect(first.logs[0]).toMatchObject({
      address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      topics: [transfer, pad(a(0)), pad(a(1))],
      data: pad('0x5'),
      logIndex: '0x0',
      blockHash: block.hash,
      transactionIndex: '0x0',
    })
    // Top-level value, then the forwarded value, then the contract's own log: execution order, one block-wide index.
    expect(second.logs.map((l: any) => [l.address, l.topics.slice(1), l.logIndex])).toEqual([
      ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', [pad(a(0)), pad(forwarder)], '0x1'],
      ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', [pad(forwarder), pad(a(3))], '0x2'],
      [forwarder, [], '0x3'],
    ])
    // Synthetic transfer logs stay out of the bloom: only the contract's LOG0 is in it.
    expect(block.logsBloom).not.toBe(`0x${'00'.repeat(256)}`)
    const [plain] = await simulate({ blockStateCalls: [{ calls: [{ from: a(0), to: a(1), value: '0x5' }] }] })
    expect(plain.calls[0].logs).toEqual([])
  })

  test('behavior: a revert reports code 3 with the reason; other VM failures -32015', async () => {
    // REVERT with Error("no"), and an INVALID opcode.
    const reverter = '0x0000000000000000000000000000000000000bad'
    const data = encodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }], errorName: 'Error', args: ['no'] })
    const words = data.slice(2).padEnd(256, '0')
    const code = `0x${[0, 1, 2, 3].map((i) => `7f${words.slice(i * 64, i * 64 + 64)}60${(i * 32).toString(16).padStart(2, '0')}52`).join('')}60646000fd` as Hex
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [reverter]: { code }, '0x0000000000000000000000000000000000000bae': { code: '0xfe' } },
          calls: [
            { from: a(0), to: reverter },
            { from: a(0), to: '0x0000000000000000000000000000000000000bae', gas: '0x10000' },
          ],
        },
      ],
    })
    expect(block.calls[0]).toMatchObject({ status: '0x0', returnData: '0x', error: { code: 3, message: 'execution reverted: no' } })
    expect(block.calls[0].error.data.startsWith('0x08c379a0')).toBe(true)
    expect(block.calls[1]).toMatchObject({ status: '0x0', gasUsed: '0x10000', error: { code: -32015 } })
  })

  test('args: validation applies nonce and base fee checks', async () => {
    expect(await rpcError({ validation: true, blockStateCalls: [{ calls: [{ from: a(0), to: a(1) }] }] })).toMatchObject({ code: -38012 })
    expect(
      await rpcError({
        validation: true,
        blockStateCalls: [{ calls: [{ from: a(0), to: a(1), nonce: '0x5', maxFeePerGas: toHex(parseGwei('10')) }] }],
      }),
    ).toMatchObject({ code: -38011 })
    // The library's refusal names the block's baseFeePerGas in its dump whatever the reason: funds stay funds.
    expect(
      await rpcError({
        validation: true,
        blockStateCalls: [{ calls: [{ from: '0x000000000000000000000000000000000000dead', to: a(1), value: '0x1', maxFeePerGas: toHex(parseGwei('10')) }] }],
      }),
    ).toMatchObject({ code: -38014, message: expect.stringContaining('insufficient funds for gas * price + value') })
    const [block] = await simulate({
      validation: true,
      returnFullTransactions: true,
      blockStateCalls: [{ calls: [{ from: a(0), to: a(1), maxFeePerGas: toHex(parseGwei('10')) }] }],
    })
    // With validation the base fee follows the parent; the full transaction shows its sender.
    expect(BigInt(block.baseFeePerGas)).toBeGreaterThan(0n)
    expect(block.transactions[0].from).toBe(a(0))
  })

  test('error: sanitizing and limits', async () => {
    expect(await rpcError({ blockStateCalls: [] })).toEqual({ code: -32602, message: 'empty input' })
    const head = BigInt(await devnet.request({ method: 'eth_blockNumber' }))
    expect(await rpcError({ blockStateCalls: [{ blockOverrides: { number: toHex(head) } }] })).toMatchObject({ code: -38020 })
    const time = BigInt((await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', false] }))!.timestamp)
    expect(
      await rpcError({ blockStateCalls: [{ blockOverrides: { time: toHex(time + 10n) } }, { blockOverrides: { time: toHex(time + 10n) } }] }),
    ).toEqual({ code: -38021, message: `block timestamps must be in order: ${time + 10n} <= ${time + 10n}` })
    expect(await rpcError({ blockStateCalls: Array.from({ length: 257 }, () => ({})) })).toEqual({ code: -38026, message: 'too many blocks' })
    expect(await rpcError({ blockStateCalls: [{ blockOverrides: { number: toHex(head + 257n) } }] })).toMatchObject({ code: -38026 })
    const call = { from: a(0), to: a(1) }
    expect(await rpcError({ blockStateCalls: [{ calls: Array.from({ length: 5001 }, () => call) }] })).toMatchObject({
      code: -38026,
      message: 'too many calls in block: 5001 > 5000',
    })
    expect(await rpcError({ blockStateCalls: [{ calls: [{ ...call, gas: '0xffffffffff' }] }] })).toMatchObject({ code: -38015 })
    expect(await rpcError({ blockStateCalls: [{ calls: [{ from: a(0), to: a(1), value: '0x1', gas: '0x100' }] }] })).toMatchObject({ code: -38013 })
    expect(await rpcError({ blockStateCalls: [{ stateOverrides: { [a(5)]: { movePrecompileToAddress: a(6) } } }] })).toMatchObject({ code: -32000 })
    expect(await rpcError({ blockStateCalls: [{ calls: [{ from: a(0), to: 'nope' }] }] })).toMatchObject({ code: -32602 })
    expect(await rpcError({ blockStateCalls: [{}] }, '0x999')).toEqual({ code: -32000, message: 'header not found' })
  })
})

describe('eth_simulateV1 on pending', () => {
  test('behavior: a receiveWithAuthorization fails after a pre-confirmed transfer drains the payer, and passes with a balance override', async () => {
    const token = devnet.token.address
    const client = createPublicClient({ chain: devnet.chain, transport: custom(devnet) })
    const payer = privateKeyToAccount(devnet.accounts[7]!.privateKey)
    const payee = devnet.accounts[8]!.address
    const balance = (await client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [payer.address] })) as bigint

    // The payer moves every unit away; the transfer is pre-confirmed, not sealed.
    const drain = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [devnet.accounts[9]!.address, balance] })
    await devnet.request({ method: 'eth_sendTransaction', params: [{ from: payer.address, to: token, data: drain, gas: '0x30000' }] })
    await devnet.preconfirm()

    const pendingBlock = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['pending', false] }))!
    const now = Number(BigInt(pendingBlock.timestamp)) * 1000
    const domain = await readTokenDomain(client, token)
    const authorization = createAuthorization({ domain, from: payer.address, to: payee, amount: 1_000_000n, now })
    const { v, r, s } = parseSignature(await payer.signTypedData(toTypedData(authorization)))
    const input = encodeFunctionData({
      abi: tokenAbi,
      functionName: 'receiveWithAuthorization',
      args: [authorization.from, authorization.to, authorization.value, authorization.validAfter, authorization.validBefore, authorization.nonce, Number(v), r, s],
    })
    const call = { from: payee, to: token, input }

    const [onPending] = await simulate({ blockStateCalls: [{ calls: [call] }] }, 'pending')
    // The first simulated block is the pending block: number head+1, its timestamp, on the pre-confirmed state.
    expect(onPending.number).toBe(pendingBlock.number)
    expect(onPending.timestamp).toBe(pendingBlock.timestamp)
    expect(onPending.calls[0].status).toBe('0x0')
    expect(onPending.calls[0].error.code).toBe(3)
    expect(onPending.calls[0].error.message).toMatch(/transfer amount exceeds balance/)

    // On latest the drain has not happened yet, so the same authorization goes through.
    const [onLatest] = await simulate({ blockStateCalls: [{ calls: [call] }] }, 'latest')
    expect(onLatest.calls[0].status).toBe('0x1')

    // A token balance override on pending makes it pass too, with the token's own Transfer log.
    const [overridden] = await simulate(
      {
        blockStateCalls: [
          { stateOverrides: { [token]: { stateDiff: { [balanceSlot(payer.address)]: pad(toHex(5_000_000n)) } } }, calls: [call] },
        ],
      },
      'pending',
    )
    expect(overridden.calls[0].status).toBe('0x1')
    expect(overridden.calls[0].logs.some((l: any) => l.address === token.toLowerCase())).toBe(true)
    const remaining = encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [payer.address] })
    const [, after] = await simulate(
      {
        blockStateCalls: [
          { stateOverrides: { [token]: { stateDiff: { [balanceSlot(payer.address)]: pad(toHex(5_000_000n)) } } }, calls: [call] },
          { calls: [{ from: payee, to: token, input: remaining }] },
        ],
      },
      'pending',
    )
    const left = decodeFunctionResult({ abi: tokenAbi, functionName: 'balanceOf', data: after.calls[0].returnData })
    expect(left).toBe(4_000_000n)

    await devnet.seal()
  })
})

describe('eth_simulateV1 config', () => {
  test('args: simulate.computeStateRoot and simulate.timestampStep', async () => {
    const geth = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, simulate: { computeStateRoot: true, timestampStep: 12 } })
    try {
      const head = (await geth.request({ method: 'eth_getBlockByNumber', params: ['latest', false] }))!
      const payload = { blockStateCalls: [{ calls: [{ from: geth.accounts[0]!.address, to: geth.accounts[1]!.address, value: '0x1' as const }] }, {}] }
      const [first, second] = (await geth.request({ method: 'eth_simulateV1', params: [payload] })) as any[]
      expect(first.stateRoot).not.toBe(zeroHash)
      expect(second.stateRoot).not.toBe(first.stateRoot)
      expect(BigInt(first.timestamp) - BigInt(head.timestamp)).toBe(12n)
      // The same request twice gives the same blocks: nothing of the first run stays behind.
      const again = (await geth.request({ method: 'eth_simulateV1', params: [payload] })) as any[]
      expect(again.map((b) => b.hash)).toEqual([first.hash, second.hash])
    } finally {
      await geth.close()
    }
  })

  test('error: invalid simulate config', async () => {
    await expect(createDevnet({ quiet: true, simulate: { timestampStep: 0 } })).rejects.toThrow(/simulate.timestampStep/)
  })
})

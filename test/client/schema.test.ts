import {
  type Hex,
  type RpcBlock,
  type RpcTransactionReceipt,
  createClient,
  createPublicClient,
  createTestClient,
  custom,
  parseEther,
  rpcSchema,
} from 'viem'
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest'
import type { MiningConfig } from '../../src/config/schema.js'
import type { CallFrame as EngineCallFrame } from '../../src/evm/callTracer.js'
import type { describeChainConfig } from '../../src/node/chainConfig.js'
import type { Fixture } from '../../src/node/fixture/format.js'
import type { TxTrace } from '../../src/node/trace.js'
import { allMethods } from '../../src/rpc/registry.js'
import { createCheckAuthorizationMethod } from '../../src/ui/checkAuthorization.js'
import {
  type BlockSummary,
  type CallFrame,
  type Devnet,
  type DevnetFixture,
  type DevnetMethod,
  type DevnetRpcSchema,
  type DevnetStatus,
  type EthConfig,
  type MiningMode,
  type StructLogTrace,
  type TraceResult,
  createDevnet,
  devnetMethodNames,
} from '../../src/index.js'

/**
 * DevnetRpcSchema against the methods devnet serves: the run-time list
 * against the registry (a method added without a schema entry fails here),
 * and the types against the compiler (`npm run typecheck` compiles this
 * file: each `@ts-expect-error` line must fail to compile, each
 * `expectTypeOf` must hold). The calls also run, so each type claim is
 * checked against what devnet answers.
 */
let devnet: Devnet
beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
})
afterAll(() => devnet.close())

/** The methods the in-process Devnet dispatches: the registry plus devnet_checkAuthorization (added in src/index.ts). */
const served = () => {
  const check = createCheckAuthorizationMethod({ request: () => devnet.request, token: devnet.token.address })
  return [...allMethods.map((m) => m.method), check.method]
}

describe('DevnetRpcSchema', () => {
  test('default: devnetMethodNames is exactly the set of methods the devnet serves', () => {
    expect(new Set(devnetMethodNames).size).toBe(devnetMethodNames.length)
    expect([...devnetMethodNames].sort()).toEqual([...new Set(served())].sort())
    // And every schema method is in the list (the list's `satisfies` checks the other way).
    expectTypeOf<Exclude<DevnetMethod, (typeof devnetMethodNames)[number]>>().toBeNever()
  })

  test('error: an unknown method name does not compile, and devnet answers -32601', async () => {
    // @ts-expect-error not a devnet method
    const unknown = devnet.request({ method: 'eth_notAMethod' })
    await expect(unknown).rejects.toMatchObject({ code: -32601 })
    // @ts-expect-error Anvil has it, devnet does not
    await expect(devnet.request({ method: 'anvil_dumpState' })).rejects.toMatchObject({ code: -32601 })
  })

  test('error: wrong params do not compile, and devnet answers -32602', async () => {
    const [a] = devnet.accounts
    // @ts-expect-error an address is a 0x string
    await expect(devnet.request({ method: 'eth_getBalance', params: [123] })).rejects.toMatchObject({ code: -32602 })
    // @ts-expect-error the address is required
    await expect(devnet.request({ method: 'eth_getBalance', params: [] })).rejects.toMatchObject({ code: -32602 })
    // @ts-expect-error params is required
    await expect(devnet.request({ method: 'eth_getCode' })).rejects.toMatchObject({ code: -32602 })
    // @ts-expect-error too many arguments
    await expect(devnet.request({ method: 'eth_getBalance', params: [a!.address, 'latest', true] })).rejects.toMatchObject({
      code: -32602,
    })
    // @ts-expect-error paused is a boolean
    await expect(devnet.request({ method: 'devnet_setTokenPaused', params: ['yes'] })).rejects.toMatchObject({ code: -32602 })
    // @ts-expect-error a reorg needs a depth
    await expect(devnet.request({ method: 'devnet_reorg', params: [{}] })).rejects.toMatchObject({ code: -32602 })
    // A method without parameters takes no `params`, as viem calls it.
    // @ts-expect-error devnet_seal takes no params
    await expect(devnet.request({ method: 'devnet_seal', params: [1] })).rejects.toMatchObject({ code: -32602 })
  })

  test('default: results are typed as devnet answers them', async () => {
    const [a, b] = devnet.accounts
    const balance = await devnet.request({ method: 'eth_getBalance', params: [a!.address] })
    expectTypeOf(balance).toEqualTypeOf<`0x${string}`>()
    expect(BigInt(balance)).toBe(parseEther('10000'))

    const hash = await devnet.request({ method: 'eth_sendTransaction', params: [{ from: a!.address, to: b!.address, value: '0x1' }] })
    expectTypeOf(hash).toEqualTypeOf<Hex>()
    const sealed = await devnet.request({ method: 'devnet_seal' })
    expectTypeOf(sealed).toEqualTypeOf<BlockSummary>()
    expect(sealed.number).toBe('0x1')

    const block = await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', true] })
    expectTypeOf(block).toEqualTypeOf<RpcBlock | null>()
    expect(block?.hash).toBe(sealed.hash)
    const receipt = await devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] })
    expectTypeOf(receipt).toEqualTypeOf<RpcTransactionReceipt | null>()
    expect(receipt?.status).toBe('0x1')

    const status = await devnet.request({ method: 'devnet_status' })
    expectTypeOf(status).toEqualTypeOf<DevnetStatus>()
    expect(status.head).toEqual({ number: sealed.number, hash: sealed.hash, timestamp: block!.timestamp })
    expect(status.mining.type).toBe('manual')

    // Parameters that are all optional: with `params` or without.
    expectTypeOf(await devnet.request({ method: 'evm_mine' })).toEqualTypeOf<'0x0'>()
    expect(await devnet.request({ method: 'evm_mine', params: [{ blocks: 2 }] })).toBe('0x0')
    expect(await devnet.request({ method: 'eth_blockNumber' })).toBe('0x4')

    const trace = await devnet.request({ method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] })
    expectTypeOf(trace).toEqualTypeOf<TraceResult>()
    expect(trace).toMatchObject({ type: 'CALL', from: a!.address.toLowerCase(), value: '0x1' })
  })

  test('default: the devnet is a viem transport; a client typed by the schema types its request too', async () => {
    const publicClient = createPublicClient({ chain: devnet.chain, transport: custom(devnet) })
    const testClient = createTestClient({ chain: devnet.chain, mode: 'anvil', transport: custom({ request: devnet.request }) })
    // cacheTime 0: viem caches the block number for its polling interval.
    const before = await publicClient.getBlockNumber({ cacheTime: 0 })
    await testClient.mine({ blocks: 1 })
    expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(before + 1n)

    const client = createClient({ transport: custom(devnet), rpcSchema: rpcSchema<DevnetRpcSchema>() })
    const status = await client.request({ method: 'devnet_status' })
    expectTypeOf(status).toEqualTypeOf<DevnetStatus>()
    expect(BigInt(status.head.number)).toBe(before + 1n)
    // @ts-expect-error the schema types a viem client's request as well
    await expect(client.request({ method: 'devnet_setTokenPaused', params: [1] })).rejects.toThrow()
  })
})

describe('the schema against the node\'s own types', () => {
  test('default: devnet\'s wire shapes are the ones the node builds', () => {
    expectTypeOf<DevnetFixture>().toEqualTypeOf<Fixture>()
    expectTypeOf<MiningMode>().toEqualTypeOf<MiningConfig>()
    expectTypeOf<StructLogTrace>().toEqualTypeOf<TxTrace>()
    expectTypeOf<CallFrame>().toEqualTypeOf<EngineCallFrame>()
    // The node types forkId as a string; the wire's is hex. A field the node adds and the schema lacks fails here.
    expectTypeOf<EthConfig>().toExtend<ReturnType<typeof describeChainConfig>>()
  })
})

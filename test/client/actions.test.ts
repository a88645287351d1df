import { createTestClient, http, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devnetActions } from '../../src/index.js'
import { startTestDevnet } from '../utils.js'

const tokenAbi = parseAbi(['function balanceOf(address) view returns (uint256)', 'function paused() view returns (bool)'])
const holder = '0x00000000000000000000000000000000000000aa'

describe('devnetActions: devnet methods as viem actions', () => {
  let env: Awaited<ReturnType<typeof startTestDevnet>>
  let client: ReturnType<typeof extended>
  const extended = (url: string) => createTestClient({ transport: http(url), mode: 'anvil' }).extend(devnetActions)

  beforeAll(async () => {
    env = await startTestDevnet()
    client = extended(env.devnet.url)
  })
  afterAll(() => env.devnet.close())

  it('seals, pre-confirms and reorgs', async () => {
    const first = await client.seal()
    const second = await client.seal()
    expect(second.number).toBe(first.number + 1n)
    const tick = await client.preconfirm()
    expect(tick.number).toBe(second.number + 1n)
    const { removed, added } = await client.reorg({ depth: 1 })
    expect(removed).toEqual([second])
    expect(added).toHaveLength(1)
    expect(added[0]!.number).toBe(second.number)
    expect(added[0]!.hash).not.toBe(second.hash)
    expect(await env.publicClient.getBlockNumber()).toBe(second.number)
  })

  it('sets token balances and pauses the token', async () => {
    const token = env.devnet.config.token.address as `0x${string}`
    await client.setTokenBalance({ address: holder, amount: 123_456n })
    expect(await env.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [holder] })).toBe(123_456n)
    await client.setTokenPaused({ paused: true })
    expect(await env.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'paused' })).toBe(true)
    await client.setTokenPaused({ paused: false })
  })

  it('dumps a fixture and loads it back', async () => {
    const head = await client.seal()
    const fixture = await client.dumpFixture()
    expect(fixture.blocks.length).toBe(Number(head.number) + 1)
    await client.seal()
    const loaded = await client.loadFixture({ fixture })
    expect(loaded).toEqual({ number: head.number, hash: head.hash, blocks: fixture.blocks.length })
  })

  it('a devnet error reaches the caller as viem\'s error', async () => {
    await expect(client.reorg({ depth: 10_000 })).rejects.toThrow(/Reorg depth must not exceed current chain height/)
  })
})

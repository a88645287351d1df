import { afterEach, describe, expect, test } from 'vitest'
import { harnessDevnet, rpcError } from './helpers.js'

type H = Awaited<ReturnType<typeof harnessDevnet>>

describe('time controls on the virtual clock', () => {
  let h: H
  afterEach(() => h?.devnet.close())
  const ts = async (tag: string | bigint = 'latest') => BigInt((await h.block(tag)).timestamp)

  test('evm_increaseTime answers the total offset and moves the next block', async () => {
    h = await harnessDevnet()
    const genesis = await ts()
    expect(await h.rpc('evm_increaseTime', 100)).toBe(100)
    expect(await h.rpc('evm_increaseTime', '0x32')).toBe(150)
    // The pending block follows at once: a `pending` call sees the new time.
    expect(await ts('pending')).toBe(genesis + 150n)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 150n)
    // Without further moves a block follows its parent by one second.
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 151n)
    expect((await rpcError(h.rpc('evm_increaseTime', -5))).code).toBe(-32602)
  })

  test('evm_setNextBlockTimestamp pins one block and refuses going back', async () => {
    h = await harnessDevnet()
    const genesis = await ts()
    expect(await h.rpc('evm_setNextBlockTimestamp', `0x${(genesis + 1000n).toString(16)}`)).toBe(null)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 1000n)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 1001n)
    const error = await rpcError(h.rpc('evm_setNextBlockTimestamp', Number(genesis)))
    expect(error.code).toBe(-32602)
    expect(error.message).toContain('lower than the previous block')
  })

  test('a time move re-times pre-confirmed transactions with the block they will be sealed in', async () => {
    h = await harnessDevnet()
    const hash = await h.transfer(0, h.devnet.accounts[1]!.address)
    await h.devnet.preconfirm()
    const genesis = await ts()
    expect(await ts('pending')).toBe(genesis + 1n)
    await h.rpc('evm_increaseTime', 500)
    expect(await ts('pending')).toBe(genesis + 500n)
    expect(h.devnet.node.pending().txs.map((t) => t.hash)).toEqual([hash])
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 500n)
    expect((await h.block()).transactions).toEqual([hash])
  })

  test('anvil_setTime and evm_setTime set the clock and answer the difference', async () => {
    h = await harnessDevnet()
    const genesis = await ts()
    expect(await h.rpc('anvil_setTime', Number(genesis + 3600n))).toBe(3600)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 3600n)
    expect(await h.rpc('evm_setTime', `0x${(genesis + 3700n).toString(16)}`)).toBe(100)
    // increaseTime's total counts setTime moves too.
    expect(await h.rpc('evm_increaseTime', 0)).toBe(3700)
  })

  test('a block timestamp interval spaces blocks until removed', async () => {
    h = await harnessDevnet()
    const genesis = await ts()
    expect(await h.rpc('anvil_setBlockTimestampInterval', 12)).toBe(null)
    await h.devnet.seal()
    await h.devnet.seal()
    expect([await ts(1n), await ts(2n)]).toEqual([genesis + 12n, genesis + 24n])
    expect(await h.rpc('anvil_removeBlockTimestampInterval')).toBe(true)
    expect(await h.rpc('anvil_removeBlockTimestampInterval')).toBe(false)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 25n)
    // Hardhat's name takes milliseconds, as viem's hardhat mode sends it.
    expect(await h.rpc('hardhat_setBlockTimestampInterval', 5000)).toBe(true)
    await h.devnet.seal()
    expect(await ts()).toBe(genesis + 30n)
    expect((await rpcError(h.rpc('anvil_setBlockTimestampInterval', 0))).code).toBe(-32602)
  })

  test('anvil_mine seals count blocks, jumping the clock by interval before each', async () => {
    h = await harnessDevnet()
    const genesis = await ts()
    expect(await h.rpc('anvil_mine', '0x3', '0xa')).toBe(null)
    expect([await ts(1n), await ts(2n), await ts(3n)]).toEqual([genesis + 10n, genesis + 20n, genesis + 30n])
    expect(await h.rpc('hardhat_mine', '0x2')).toBe(true)
    expect(h.devnet.node.chain.height()).toBe(5n)
    expect(await h.rpc('anvil_mine')).toBe(null)
    expect(h.devnet.node.chain.height()).toBe(6n)
    expect((await rpcError(h.rpc('anvil_mine', '0xffffffff'))).message).toContain('at most')
    // evm_mine takes an exact timestamp.
    await h.rpc('evm_mine', `0x${(genesis + 9999n).toString(16)}`)
    expect(await ts()).toBe(genesis + 9999n)
  })
})

describe('evm_mine', () => {
  let h: H
  afterEach(() => h?.devnet.close())

  test('takes a timestamp or { timestamp, blocks }, and re-times pre-confirmed transactions', async () => {
    h = await harnessDevnet()
    const genesis = BigInt((await h.block()).timestamp)
    const hash = await h.transfer(0, h.devnet.accounts[1]!.address)
    await h.devnet.preconfirm()
    expect(await h.rpc('evm_mine', Number(genesis + 100n))).toBe('0x0')
    const first = await h.block()
    expect([BigInt(first.timestamp), first.transactions]).toEqual([genesis + 100n, [hash]])
    await h.rpc('evm_mine', { timestamp: `0x${(genesis + 200n).toString(16)}`, blocks: 3 })
    expect(h.devnet.node.chain.height()).toBe(4n)
    expect(BigInt((await h.block(2n)).timestamp)).toBe(genesis + 200n)
    expect(BigInt((await h.block(4n)).timestamp)).toBe(genesis + 202n)
    expect((await rpcError(h.rpc('evm_mine', { blocks: 1, count: 2 }))).code).toBe(-32602)
  })
})

describe('anvil_mine / hardhat_mine on the wall clock', () => {
  let h: H
  afterEach(() => h?.devnet.close())
  const ts = async (n: bigint) => BigInt((await h.block(n)).timestamp)

  test('consecutive blocks are exactly interval apart once the head has run ahead of the clock', async () => {
    h = await harnessDevnet({ clock: 'wall' })
    // The head 10,000 s ahead of the machine's clock, as after mining many blocks quickly.
    const ahead = BigInt(Math.floor(Date.now() / 1000)) + 10_000n
    await h.rpc('evm_setNextBlockTimestamp', Number(ahead))
    await h.devnet.seal()
    expect(await h.rpc('anvil_mine', '0x3', '0x5')).toBe(null)
    expect([await ts(2n), await ts(3n), await ts(4n)]).toEqual([ahead + 5n, ahead + 10n, ahead + 15n])
    expect(await h.rpc('hardhat_mine', '0x2', '0x3c')).toBe(true)
    expect([await ts(5n), await ts(6n)]).toEqual([ahead + 75n, ahead + 135n])
  })
})

describe('genesis time', () => {
  let h: H
  afterEach(() => h?.devnet.close())
  const seconds = () => BigInt(Math.floor(Date.now() / 1000))

  test('wall clock: genesis carries the start time, so latest is current before the first seal', async () => {
    const before = seconds()
    h = await harnessDevnet({ clock: 'wall' })
    const after = seconds()
    const genesis = BigInt((await h.block()).timestamp)
    expect(genesis >= before && genesis <= after).toBe(true)
    expect(h.devnet.config.genesisTimestamp).toBe(genesis)
    // An authorization valid from a minute ago (the payments library's default) is valid at `latest`.
    expect(genesis > seconds() - 60n).toBe(true)
  })

  test('wall clock with genesisTimestamp given: that time; virtual clock: the fixed default', async () => {
    h = await harnessDevnet({ clock: 'wall', genesisTimestamp: 1_700_000_000 })
    expect(BigInt((await h.block()).timestamp)).toBe(1_700_000_000n)
    await h.devnet.close()
    h = await harnessDevnet({ clock: 'virtual' })
    expect(BigInt((await h.block()).timestamp)).toBe(1_767_225_600n)
  })
})

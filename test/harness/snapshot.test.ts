import { type Hex, parseEther } from 'viem'
import { afterEach, describe, expect, test } from 'vitest'
import type { StoredBlock } from '../../src/node/chain.js'
import { harnessDevnet } from './helpers.js'

type H = Awaited<ReturnType<typeof harnessDevnet>>

describe('evm_snapshot / evm_revert', () => {
  const open: H[] = []
  afterEach(async () => {
    for (const h of open.splice(0)) await h.devnet.close()
  })
  const start = async () => {
    const h = await harnessDevnet()
    open.push(h)
    return h
  }

  test('revert restores blocks, balances, pool, pre-confirmed txs and clock; the id is used up', async () => {
    const { devnet, rpc, transfer, balance, block } = await start()
    const [, b, c] = devnet.accounts
    await transfer(0, b!.address)
    await devnet.seal()
    const preconfirmed = await transfer(0, c!.address)
    await devnet.preconfirm()
    const pooled = await transfer(1, c!.address)
    const headBefore = await block()
    const pendingBefore = await block('pending')
    const receiptBefore = await rpc('eth_getTransactionReceipt', preconfirmed)
    const id = await rpc('evm_snapshot')
    expect(id).toBe('0x1')

    await rpc('evm_increaseTime', 3600)
    await devnet.seal()
    await transfer(2, b!.address)
    await rpc('anvil_mine', '0x3')
    await rpc('anvil_setBalance', b!.address, '0x5')
    expect(await balance(b!.address)).toBe(5n)
    expect(BigInt((await block()).number)).toBe(BigInt(headBefore.number) + 4n)

    expect(await rpc('evm_revert', id)).toBe(true)
    expect(await block()).toEqual(headBefore)
    expect(await balance(b!.address)).toBe(parseEther('10001'))
    expect(devnet.node.pool.all().map((p) => p.hash)).toEqual([pooled])
    expect(devnet.node.pending().txs.map((t) => t.hash)).toEqual([preconfirmed])
    expect(await rpc('eth_getTransactionReceipt', preconfirmed)).toEqual(receiptBefore)
    expect((await block('pending')).timestamp).toBe(pendingBefore.timestamp)
    // Used up: a second revert to the same id fails, as on Anvil and Hardhat.
    expect(await rpc('evm_revert', id)).toBe(false)
    // Sealing after the revert gives the block the snapshot's pending layer promised.
    await devnet.seal()
    expect((await block()).transactions).toEqual([preconfirmed, pooled])
  })

  test('a revert after reads only keeps the pending block as it is; one after a pre-confirmation rebuilds it', async () => {
    const { devnet, rpc, transfer, balance, block } = await start()
    const [, b, c] = devnet.accounts
    const preconfirmed = await transfer(0, b!.address)
    await devnet.preconfirm()
    const published = devnet.node.pending()
    const pendingBefore = await block('pending')

    // Reads only: the very same pending block stays (nothing is re-executed).
    const id = await rpc('evm_snapshot')
    await balance(b!.address)
    await rpc('eth_call', { from: devnet.accounts[0]!.address, to: c!.address, value: '0x1' }, 'pending')
    expect(await rpc('evm_revert', id)).toBe(true)
    expect(devnet.node.pending()).toBe(published)
    expect(await block('pending')).toEqual(pendingBefore)

    // A pre-confirmation after the snapshot: the pending block is rebuilt without it.
    const again = await rpc('evm_snapshot')
    const later = await transfer(1, c!.address)
    await devnet.preconfirm()
    expect(devnet.node.pending().txs.map((t) => t.hash)).toEqual([preconfirmed, later])
    expect(await rpc('evm_revert', again)).toBe(true)
    expect(devnet.node.pending()).not.toBe(published)
    expect(devnet.node.pending().txs.map((t) => t.hash)).toEqual([preconfirmed])
    expect(await block('pending')).toEqual(pendingBefore)
    expect(devnet.node.pool.all().map((p) => p.hash)).toEqual([])
  })

  test('reverting deletes that id and every later one; an unknown id is false', async () => {
    const { devnet, rpc } = await start()
    const first = await rpc('evm_snapshot')
    await devnet.seal()
    const second = await rpc('evm_snapshot')
    await devnet.seal()
    const third = await rpc('evm_snapshot')
    expect([first, second, third]).toEqual(['0x1', '0x2', '0x3'])
    expect(await rpc('evm_revert', '0x99')).toBe(false)
    expect(await rpc('evm_revert', second)).toBe(true)
    expect(devnet.node.chain.height()).toBe(1n)
    expect(await rpc('evm_revert', third)).toBe(false)
    expect(await rpc('evm_revert', second)).toBe(false)
    expect(await rpc('evm_revert', first)).toBe(true)
    expect(devnet.node.chain.height()).toBe(0n)
    // Ids keep counting after a revert, so an old id never names a new snapshot.
    expect(await rpc('evm_snapshot')).toBe('0x4')
  })

  test('a cheat on the head after the snapshot is undone; one before it is kept', async () => {
    const { devnet, rpc, balance } = await start()
    const b = devnet.accounts[1]!.address
    await rpc('anvil_setBalance', b, '0x64')
    const id = await rpc('evm_snapshot')
    const root = devnet.node.chain.head().stateRoot
    await rpc('anvil_setBalance', b, '0x1')
    await rpc('anvil_setNonce', b, '0x7')
    expect(await balance(b)).toBe(1n)
    await rpc('evm_revert', id)
    expect(await balance(b)).toBe(100n)
    expect(await rpc('eth_getTransactionCount', b, 'latest')).toBe('0x0')
    expect(devnet.node.chain.head().stateRoot).toEqual(root)
    // The cheated head, sealed on and reverted to, keeps its cheated state.
    const again = await rpc('evm_snapshot')
    await devnet.seal()
    await devnet.seal()
    await rpc('evm_revert', again)
    expect(await balance(b)).toBe(100n)
  })

  test('blocks replaced after the snapshot come back with their hashes; the replacements are announced removed', async () => {
    const { devnet, rpc, transfer, block } = await start()
    const b = devnet.accounts[1]!.address
    await transfer(0, b)
    await devnet.seal()
    await transfer(0, b)
    await devnet.seal()
    const original = [await block(1n), await block(2n)]
    const id = await rpc('evm_snapshot')
    // A reorg: drop both blocks and seal different ones in their place.
    await rpc('anvil_rollback', 2)
    await rpc('evm_increaseTime', 99)
    await devnet.seal()
    await devnet.seal()
    await devnet.seal()
    const replacements = [1n, 2n, 3n].map((n) => devnet.node.chain.blockByNumber(n)!.hash)
    expect(replacements[0]).not.toBe(original[0]!.hash)
    const removed: StoredBlock[][] = []
    devnet.node.events.on('removedBlocks', (blocks) => removed.push(blocks))
    expect(await rpc('evm_revert', id)).toBe(true)
    expect([await block(1n), await block(2n)]).toEqual(original)
    expect(devnet.node.chain.height()).toBe(2n)
    expect(removed.map((list) => list.map((x) => x.hash))).toEqual([replacements])
    // Transactions of the restored blocks are found again.
    const tx = original[1]!.transactions[0]!
    expect((await rpc('eth_getTransactionReceipt', tx)).blockHash).toBe(original[1]!.hash)
    expect(devnet.node.pending().parentHash).toBe(original[1]!.hash)
  })

  test('time controls, mining mode, impersonation and registered components are restored', async () => {
    const { devnet, rpc, block } = await start()
    const stranger = '0x00000000000000000000000000000000000000aa'
    const participant = { value: 'before', save() { return this.value }, restore(v: unknown) { this.value = v as string } }
    devnet.node.snapshots.register(participant)
    const id = await rpc('evm_snapshot')
    participant.value = 'after'
    await rpc('anvil_setBlockTimestampInterval', 60)
    await rpc('evm_setNextBlockTimestamp', '0x7fffffff')
    await rpc('evm_setAutomine', true)
    await rpc('anvil_impersonateAccount', stranger)
    await rpc('evm_increaseTime', 5)
    await rpc('evm_revert', id)
    expect(participant.value).toBe('before')
    expect(await rpc('anvil_getAutomine')).toBe(false)
    expect(devnet.node.controls.isImpersonated(stranger)).toBe(false)
    // The clock is back too: the increase reports its total from the snapshot's offset.
    expect(await rpc('evm_increaseTime', 1)).toBe(1)
    // Neither the pinned timestamp nor the 60 s interval survived: two blocks, one second apart after the clock's.
    await devnet.seal()
    await devnet.seal()
    const [first, second] = [BigInt((await block(1n)).timestamp), BigInt((await block(2n)).timestamp)]
    expect(first).not.toBe(0x7fffffffn)
    expect(second - first).toBe(1n)
  })

  test('eight devnets in one process do not interfere', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => start()))
    const target = '0x00000000000000000000000000000000000000bb' as Hex
    await Promise.all(
      all.map(async (h, i) => {
        const id = await h.rpc('evm_snapshot')
        for (let k = 0; k <= i; k++) await h.transfer(0, target, BigInt(i + 1))
        await h.rpc('anvil_mine', `0x${(i + 1).toString(16)}`)
        await h.rpc('evm_increaseTime', i * 10)
        if (i % 2 === 0) await h.rpc('evm_revert', id)
      }),
    )
    for (const [i, h] of all.entries()) {
      const reverted = i % 2 === 0
      expect(h.devnet.node.chain.height()).toBe(reverted ? 0n : BigInt(i + 1))
      expect(await h.balance(target)).toBe(reverted ? 0n : BigInt((i + 1) * (i + 1)))
    }
  })
})

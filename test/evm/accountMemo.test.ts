import { RLP } from '@ethereumjs/rlp'
import { Account, bigIntToUnpaddedBytes, createAccountFromRLP, createAddressFromString } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { encodeAccount } from '../../src/evm/accountCodec.js'
import { createDevCommon } from '../../src/evm/common.js'
import { createStateManager } from '../../src/evm/vm.js'

const common = createDevCommon(31337n, 'osaka')
const alice = createAddressFromString(`0x${'a1'.repeat(20)}`)
const bob = createAddressFromString(`0x${'b2'.repeat(20)}`)

describe('account reads from the state cache', () => {
  it('give what was put, as a new Account on every read, whatever the caller does with the last one', async () => {
    const state = createStateManager(common)
    await state.putAccount(alice, new Account(7n, 10n ** 18n))
    const first = (await state.getAccount(alice))!
    expect([first.nonce, first.balance]).toEqual([7n, 10n ** 18n])
    first.nonce = 99n
    first.balance = 1n
    const second = (await state.getAccount(alice))!
    expect(second).not.toBe(first)
    expect([second.nonce, second.balance]).toEqual([7n, 10n ** 18n])
    second.nonce += 1n
    await state.putAccount(alice, second)
    const third = (await state.getAccount(alice))!
    expect([third.nonce, third.balance]).toEqual([8n, 10n ** 18n])
    expect(third.serialize()).toEqual(new Account(8n, 10n ** 18n).serialize())
    expect(createAccountFromRLP(third.serialize())).toEqual(third)
  })

  it('follow checkpoints and reverts, and missing accounts stay missing', async () => {
    const state = createStateManager(common)
    expect(await state.getAccount(bob)).toBeUndefined()
    await state.putAccount(bob, new Account(1n, 5n))
    await state.checkpoint()
    const inside = (await state.getAccount(bob))!
    inside.balance = 6n
    await state.putAccount(bob, inside)
    expect((await state.getAccount(bob))!.balance).toBe(6n)
    await state.revert()
    expect((await state.getAccount(bob))!.balance).toBe(5n)
    await state.deleteAccount(bob)
    expect(await state.getAccount(bob)).toBeUndefined()
  })

  it('give the same state root as the accounts written straight into a trie', async () => {
    const cached = createStateManager(common)
    const accounts = [new Account(1n, 2n), new Account(0n, 123456789n), new Account(300n, 0n)]
    const addresses = [alice, bob, createAddressFromString(`0x${'c3'.repeat(20)}`)]
    for (const [i, address] of addresses.entries()) {
      await cached.putAccount(address, accounts[i]!)
      const read = (await cached.getAccount(address))!
      read.nonce += 1n
      await cached.putAccount(address, read)
    }
    const plain = createStateManager(common)
    for (const [i, address] of addresses.entries())
      await plain.putAccount(address, new Account(accounts[i]!.nonce + 1n, accounts[i]!.balance))
    expect(await cached.getStateRoot()).toEqual(await plain.getStateRoot())
    // Read back from the trie after the flush, with the cache emptied.
    cached.clearCaches()
    expect((await cached.getAccount(alice))!.nonce).toBe(2n)
    expect((await cached.getAccount(bob))!.balance).toBe(123456789n)
  })
})

describe('account RLP (src/evm/accountCodec.ts)', () => {
  it('is byte for byte the RLP of [nonce, balance, storageRoot, codeHash] over integers of every length', () => {
    let x = 0x2545f491n
    const next = () => {
      x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n)
      return x
    }
    const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 10n ** 18n, 2n ** 256n - 1n]
    for (let bytes = 1; bytes <= 32; bytes++) {
      let v = 0n
      for (let i = 0; i < bytes; i++) v = (v << 8n) | (next() & 0xffn)
      values.push(v, v | (1n << BigInt(bytes * 8 - 1)))
    }
    const root = Uint8Array.from({ length: 32 }, (_, i) => i * 7)
    const code = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)
    for (const nonce of values.filter((v) => v < 2n ** 64n))
      for (const balance of values) {
        const expected = RLP.encode([bigIntToUnpaddedBytes(nonce), bigIntToUnpaddedBytes(balance), root, code])
        expect(encodeAccount(nonce, balance, root, code)).toEqual(expected)
        expect(new Account(nonce, balance, root, code).serialize()).toEqual(expected)
      }
  })

  it('leaves what is not a state account to ethereumjs', () => {
    expect(encodeAccount(0n, 0n, new Uint8Array(31), new Uint8Array(32))).toBeUndefined()
    expect(encodeAccount(-1n, 0n, new Uint8Array(32), new Uint8Array(32))).toBeUndefined()
  })
})

import { AccountCache, CodeCache, StorageCache } from '@ethereumjs/statemanager'
import { Account, Address, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { bytesToHex as viemBytesToHex } from 'viem/utils'
import { AccountEntry, KeyedAccountCache, KeyedCodeCache, KeyedStorageCache, bytesOfHex, hexKey, hexOf } from '../../src/evm/hexKeys.js'
import { createDevCommon } from '../../src/evm/common.js'
import { createStateManager } from '../../src/evm/vm.js'
import { stockEngine } from './installEngine.js'

/** A small deterministic generator (xorshift), so a failure names its seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1
  return (n: number) => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) % n
  }
}

const addresses = Array.from({ length: 5 }, (_, i) => new Address(Uint8Array.from({ length: 20 }, (_, j) => (i * 37 + j) & 0xff)))
const slots = Array.from({ length: 6 }, (_, i) => Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? i : i * j) & 0xff))

/** An account entry as the library's, `{ accountRLP }` (the keyed cache's AccountEntry encodes it when read). */
function plain(value: unknown): unknown {
  if (value instanceof AccountEntry) return { accountRLP: value.accountRLP }
  if (Array.isArray(value)) return value.map(plain)
  return value
}

describe('hex keys (hexKeys.ts)', () => {
  it('a 20-byte key answers by its content, never a recent key\'s string: mutated arrays, views, precompile-like neighbours', () => {
    let state = 5
    const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) & 255
    const pool = Array.from({ length: 7 }, (_, i) => {
      const a = new Uint8Array(20)
      if (i < 3) a[19] = i + 1
      else for (let j = 0; j < 20; j++) a[j] = next()
      return a
    })
    const backing = new Uint8Array(64)
    for (let round = 0; round < 2000; round++) {
      const a = pool[next() % pool.length]!
      // Change one byte in place now and then: the same array must answer for its new content.
      if (next() < 40) a[next() % 20] = next()
      const view = backing.subarray(7, 27)
      view.set(a)
      expect(hexKey(a)).toBe(bytesToUnprefixedHex(a))
      expect(hexKey(view)).toBe(bytesToUnprefixedHex(a))
    }
  })

  it('hexKey and hexOf give bytesToUnprefixedHex\'s and bytesToHex\'s strings, for views into a larger buffer too', () => {
    const buffer = Uint8Array.from({ length: 300 }, (_, i) => (i * 7919) & 0xff)
    for (const [start, end] of [[0, 0], [0, 1], [3, 23], [17, 49], [0, 256], [44, 300]] as const) {
      const view = buffer.subarray(start, end)
      expect(hexKey(view)).toBe(bytesToUnprefixedHex(view))
    }
    for (const [start, end] of [[0, 0], [5, 37], [0, 300]] as const) expect(hexOf(buffer.subarray(start, end))).toBe(viemBytesToHex(buffer.subarray(start, end)))
    expect(new Address(buffer.slice(0, 20)).toString()).toBe(`0x${bytesToUnprefixedHex(buffer.slice(0, 20))}`)
  })

  it('bytesOfHex decodes as hexToBytes does, and leaves what is not well-formed to it (its error)', () => {
    for (const hex of ['0x', '0x00', '0xff', '0xAbCd', `0x${'0123456789abcdef'.repeat(9)}`] as const) expect(bytesOfHex(hex)).toEqual(hexToBytes(hex))
    expect(bytesOfHex('0xAbCd')).toBeInstanceOf(Uint8Array)
    expect(Buffer.isBuffer(bytesOfHex('0x12'))).toBe(false)
    expect(bytesOfHex('0x123')).toEqual(hexToBytes('0x123'))
    for (const bad of ['0x12zz', '0xz1', 'abcd', '0X12']) expect(() => bytesOfHex(bad)).toThrow()
    // Every pair of characters below 256 (and one beyond) in either digit: a byte where both are hex digits, else
    // hexToBytes's own error.
    const chars = [...Array.from({ length: 256 }, (_, c) => String.fromCharCode(c)), '\u0130']
    for (const a of chars)
      for (const b of ['a', 'F', '0', '/', ':', '@', 'G', '`', 'g', '\u00e1']) {
        for (const pair of [a + b, b + a]) {
          const hex = `0x12${pair}34`
          if (/^[0-9a-fA-F]{2}$/.test(pair)) expect(bytesOfHex(hex), hex).toEqual(Uint8Array.of(0x12, Number.parseInt(pair, 16), 0x34))
          else expect(() => bytesOfHex(hex), JSON.stringify(hex)).toThrow()
        }
      }
  })

  it('keyed caches answer as the library\'s through puts, deletions, checkpoints, commits, reverts and flushes', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const next = rng(seed)
      const opts = { size: 1000, type: 'ordered_map' } as never
      const pairs = [
        [new AccountCache(opts), new KeyedAccountCache(opts)],
        [new CodeCache(opts), new KeyedCodeCache(opts)],
        [new StorageCache(opts), new KeyedStorageCache(opts)],
      ] as const
      let depth = 0
      for (let step = 0; step < 400; step++) {
        const address = addresses[next(addresses.length)]!
        const slot = slots[next(slots.length)]!
        const op = next(depth > 0 ? 9 : 7)
        const results = pairs.map(([library, keyed], kind) => {
          const run = (cache: typeof library | typeof keyed) => {
            const c = cache as never as Record<string, (...args: unknown[]) => unknown>
            if (op === 0) {
              if (kind === 0) c.put!(address, step % 3 === 0 ? undefined : new Account(BigInt(step), BigInt(step * 3)))
              else if (kind === 1) c.put!(address, Uint8Array.of(step & 0xff))
              else c.put!(address, slot, Uint8Array.of(0x80 + (step % 30)))
              return undefined
            }
            if (op === 1 || op === 2) return kind === 2 ? c.get!(address, slot) : c.get!(address)
            if (op === 3) return kind === 2 ? c.del!(address, slot) : c.del!(address)
            if (op === 4) return kind === 2 ? (c.clearStorage!(address), c.dump!(address)) : c.size!()
            if (op === 5) return c.checkpoint!()
            if (op === 6) return [c.flush!(), c.size!()]
            if (op === 7) return c.commit!()
            return c.revert!()
          }
          return [run(library), run(keyed)]
        })
        if (op === 5) depth++
        if (op === 7 || op === 8) depth--
        for (const [fromLibrary, fromKeyed] of results) expect(plain(fromKeyed), `seed ${seed} step ${step} op ${op}`).toEqual(plain(fromLibrary))
      }
    }
  })

  it('an account entry keeps the fields put, whatever the caller does with its Account afterwards', () => {
    const cache = new KeyedAccountCache({ size: 10, type: 'ordered_map' } as never)
    const account = new Account(3n, 50n)
    cache.put(addresses[0]!, account)
    account.nonce = 4n
    account.balance = 0n
    const entry = cache.get(addresses[0]!)
    expect(entry).toBeInstanceOf(AccountEntry)
    expect(entry!.accountRLP).toEqual(new Account(3n, 50n).serialize())
    const read = (entry as AccountEntry).account()
    read.nonce = 9n
    expect((entry as AccountEntry).account().nonce).toBe(3n)
  })

  it('devnet\'s state managers keep their entries in keyed caches, and revert to what they held', async () => {
    const state = createStateManager(createDevCommon(31337n, 'osaka'))
    const caches = (state as unknown as { _caches: Record<string, unknown> })._caches
    if (!stockEngine) {
      expect(caches.account).toBeInstanceOf(KeyedAccountCache)
      expect(caches.code).toBeInstanceOf(KeyedCodeCache)
      expect(caches.storage).toBeInstanceOf(KeyedStorageCache)
    }
    const [alice] = addresses
    await state.putAccount(alice!, new Account(1n, 100n))
    await state.putStorage(alice!, slots[1]!, Uint8Array.of(42))
    await state.checkpoint()
    await state.putStorage(alice!, slots[1]!, Uint8Array.of(7))
    await state.putAccount(alice!, new Account(2n, 5n))
    expect(await state.getStorage(alice!, slots[1]!)).toEqual(Uint8Array.of(7))
    await state.revert()
    expect(await state.getStorage(alice!, slots[1]!)).toEqual(Uint8Array.of(42))
    expect((await state.getAccount(alice!))?.balance).toBe(100n)
    // The flush writes the keyed entries into the trie: a fresh copy at the root reads them from there.
    const root = await state.getStateRoot()
    const copy = state.shallowCopy(false)
    await copy.setStateRoot(root)
    expect(await copy.getStorage(alice!, slots[1]!)).toEqual(Uint8Array.of(42))
  })
})

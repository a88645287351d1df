import { Common, Mainnet } from '@ethereumjs/common'
import { encodeAbiParameters, keccak256, maxUint256, numberToHex, zeroAddress } from 'viem'
import { describe, expect, test } from 'vitest'
import { paymentTokenDeployedBytecode } from '../../src/artifacts/paymentToken.js'
import { buildTokenGenesis, type TokenGenesisOptions } from '../../src/evm/token.js'
import {
  allowanceSlot,
  authorizationStateSlot,
  balanceSlot,
  blacklistBit,
  decodeBalanceWord,
  decodePausedWord,
  encodeBalanceWord,
  maxBalance,
  pausedOffset,
  pausedSlot,
  permitNonceSlot,
  setBalanceWrites,
  setBlacklistedWrites,
  setPausedWrites,
  totalSupplySlot,
} from '../../src/evm/tokenSlots.js'
import { actors, baseSepoliaUsdc, createHarness, initialUnits, nonceOf, signTyped } from './helpers.js'

const common = () => new Common({ chain: Mainnet, hardfork: 'osaka' })
const options = (overrides: Partial<TokenGenesisOptions> = {}): TokenGenesisOptions => ({
  address: baseSepoliaUsdc,
  name: 'USDC',
  symbol: 'USDC',
  owner: actors.owner.address,
  masterMinter: actors.masterMinter.address,
  pauser: actors.pauser.address,
  blacklister: actors.blacklister.address,
  holders: [
    { address: actors.alice.address, units: 5n },
    { address: actors.bob.address, units: 0n },
    { address: actors.alice.address, units: 7n },
    { address: actors.charlie.address, units: 1_000_000n },
  ],
  ...overrides,
})
const word = (value: bigint) => numberToHex(value, { size: 32 })

describe('buildTokenGenesis', () => {
  test('is deterministic and uses the artifact runtime code', async () => {
    const a = await buildTokenGenesis(common(), options())
    const b = await buildTokenGenesis(common(), options())
    expect(a).toEqual(b)
    expect(a.code).toBe(paymentTokenDeployedBytecode)
    expect(a.address).toBe(baseSepoliaUsdc)
    expect(a.storage.map(([slot]) => slot)).toEqual(a.storage.map(([slot]) => slot).sort())
  })

  test('mints every holder, sets totalSupply to the sum and leaves no minter behind', async () => {
    const genesis = await buildTokenGenesis(common(), options())
    const storage = new Map(genesis.storage)
    expect(storage.get(balanceSlot(actors.alice.address))).toBe(word(12n))
    expect(storage.get(balanceSlot(actors.charlie.address))).toBe(word(1_000_000n))
    expect(storage.has(balanceSlot(actors.bob.address))).toBe(false)
    expect(storage.get(totalSupplySlot)).toBe(word(1_000_012n))
    // Roles + strings + totals + balances + the token's own blacklist flag; no minter entries.
    expect(storage.get(balanceSlot(baseSepoliaUsdc))).toBe(word(blacklistBit))
    expect(storage.get(pausedSlot)).toBe(word(BigInt(actors.pauser.address)))
    expect([...storage.values()].every((v) => v !== word(0n))).toBe(true)
  })

  test('the code does not depend on the address; only the self-blacklist slot does', async () => {
    const here = await buildTokenGenesis(common(), options())
    const there = await buildTokenGenesis(common(), options({ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }))
    expect(there.code).toBe(here.code)
    const a = here.storage.filter(([slot]) => slot !== balanceSlot(here.address))
    const b = there.storage.filter(([slot]) => slot !== balanceSlot(there.address))
    expect(a).toEqual(b)
  })

  test('surfaces constructor and mint reverts', async () => {
    await expect(buildTokenGenesis(common(), options({ owner: zeroAddress }))).rejects.toThrow(
      'FiatToken: new owner is the zero address',
    )
    await expect(
      buildTokenGenesis(common(), options({ holders: [{ address: zeroAddress, units: 1n }] })),
    ).rejects.toThrow('FiatToken: mint to the zero address')
  })

  test('the predeploy behaves: balances, roles, no minter, self-blacklisted', async () => {
    const h = await createHarness()
    expect(await h.balanceOf(actors.alice.address)).toBe(initialUnits)
    expect(await h.read('isMinter', [actors.masterMinter.address])).toBe(false)
    expect(await h.read('minterAllowance', [actors.masterMinter.address])).toBe(0n)
    expect(await h.read('isBlacklisted', [h.token])).toBe(true)
  })
})

describe('tokenSlots', () => {
  test('slots follow the FiatTokenV2_2 layout (balances at 9, totalSupply at 11, paused packed in 1)', () => {
    const holder = actors.alice.address
    expect(balanceSlot(holder)).toBe(keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 9n])))
    expect(totalSupplySlot).toBe(word(11n))
    expect(pausedSlot).toBe(word(1n))
    expect(pausedOffset).toBe(20)
  })

  test('word encodings keep the other packed fields', () => {
    const blacklisted = blacklistBit | 42n
    expect(encodeBalanceWord(blacklisted, 7n)).toBe(blacklistBit | 7n)
    expect(decodeBalanceWord(blacklistBit | 7n)).toEqual({ balance: 7n, blacklisted: true })
    expect(() => encodeBalanceWord(0n, maxBalance + 1n)).toThrow(RangeError)
    expect(() => encodeBalanceWord(0n, -1n)).toThrow(RangeError)
    expect(decodePausedWord(1n << 160n)).toBe(true)
  })

  test('setBalanceWrites sets the balance, keeps the blacklist bit and moves totalSupply by the delta', async () => {
    const h = await createHarness()
    const supply = await h.read<bigint>('totalSupply')
    await h.write(actors.blacklister, 'blacklist', [actors.alice.address])
    await h.writeSlots(await setBalanceWrites(actors.alice.address, 3n, h.readSlot))
    expect(await h.balanceOf(actors.alice.address)).toBe(3n)
    expect(await h.read('isBlacklisted', [actors.alice.address])).toBe(true)
    expect(await h.read('totalSupply')).toBe(supply - initialUnits + 3n)
    await h.writeSlots(await setBalanceWrites(actors.bob.address, 100n, h.readSlot))
    expect(await h.read('totalSupply')).toBe(supply - initialUnits + 103n)
  })

  test('setBlacklistedWrites and setPausedWrites toggle state without touching neighbours', async () => {
    const h = await createHarness()
    await h.writeSlots(await setBlacklistedWrites(actors.alice.address, true, h.readSlot))
    expect(await h.read('isBlacklisted', [actors.alice.address])).toBe(true)
    expect(await h.balanceOf(actors.alice.address)).toBe(initialUnits)
    expect((await h.write(actors.alice, 'transfer', [actors.bob.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
    await h.writeSlots(await setBlacklistedWrites(actors.alice.address, false, h.readSlot))
    expect(await h.read('isBlacklisted', [actors.alice.address])).toBe(false)

    await h.writeSlots(await setPausedWrites(true, h.readSlot))
    expect(await h.read('paused')).toBe(true)
    expect(await h.read('pauser')).toBe(actors.pauser.address)
    expect((await h.write(actors.alice, 'transfer', [actors.bob.address, 1n])).revert).toBe('Pausable: paused')
    await h.writeSlots(await setPausedWrites(false, h.readSlot))
    expect(await h.read('paused')).toBe(false)
  })

  test('allowance, authorization-state and permit-nonce slots match what the contract writes', async () => {
    const h = await createHarness()
    const { alice, bob, charlie } = actors
    await h.write(alice, 'approve', [charlie.address, 77n])
    expect(await h.readSlot(allowanceSlot(alice.address, charlie.address))).toBe(77n)
    const a = { from: alice.address, to: bob.address, value: 1n, validAfter: 0n, validBefore: maxUint256, nonce: nonceOf('slots') }
    const signature = await signTyped(h, alice, 'TransferWithAuthorization', a)
    await h.write(charlie, 'transferWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature])
    expect(await h.readSlot(authorizationStateSlot(alice.address, a.nonce))).toBe(1n)
    const p = { owner: alice.address, spender: charlie.address, value: 1n, nonce: 0n, deadline: maxUint256 }
    await h.write(charlie, 'permit', [p.owner, p.spender, p.value, p.deadline, await signTyped(h, alice, 'Permit', p)])
    expect(await h.readSlot(permitNonceSlot(alice.address))).toBe(1n)
  })
})

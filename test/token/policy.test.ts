import { domainSeparator, maxUint256, zeroAddress } from 'viem'
import { beforeEach, describe, expect, test } from 'vitest'
import { actors, baseSepoliaUsdc, createHarness, type Harness, initialUnits, nonceOf, signTyped } from './helpers.js'

/**
 * Token policy as FiatTokenV2_2: ERC-20 basics, pause, blacklist, minters and
 * the owner-managed roles, with USDC's revert strings and events.
 */

const { owner, masterMinter, pauser, blacklister, minter, alice, bob, charlie, david } = actors

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})

const event = (eventName: string, args: Record<string, unknown>) => ({ address: h.token.toLowerCase(), eventName, args })

describe('metadata and EIP-712 domain', () => {
  test('name, symbol, currency, decimals, version, roles', async () => {
    expect(await h.read('name')).toBe('USDC')
    expect(await h.read('symbol')).toBe('USDC')
    expect(await h.read('currency')).toBe('USD')
    expect(await h.read('decimals')).toBe(6)
    expect(await h.read('version')).toBe('2')
    expect(await h.read('owner')).toBe(owner.address)
    expect(await h.read('masterMinter')).toBe(masterMinter.address)
    expect(await h.read('pauser')).toBe(pauser.address)
    expect(await h.read('blacklister')).toBe(blacklister.address)
    expect(await h.read('paused')).toBe(false)
    expect(await h.read('totalSupply')).toBe(2n * initialUnits)
  })

  test('DOMAIN_SEPARATOR is computed at call time from block.chainid and address(this)', async () => {
    expect(await h.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: h.domain() }))
    const elsewhere = await createHarness({ chainId: 8453, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin' })
    expect(await elsewhere.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: elsewhere.domain() }))
    // Same runtime code at both addresses: nothing address- or chain-specific is baked in.
    expect(elsewhere.genesis.code).toBe(h.genesis.code)
    expect(h.token).toBe(baseSepoliaUsdc)
  })
})

describe('ERC-20', () => {
  test('transfer moves balance and emits Transfer', async () => {
    const outcome = await h.write(alice, 'transfer', [bob.address, 3n])
    expect(outcome.events).toEqual([event('Transfer', { from: alice.address, to: bob.address, value: 3n })])
    expect(await h.balanceOf(bob.address)).toBe(3n)
    expect(await h.balanceOf(alice.address)).toBe(initialUnits - 3n)
  })

  test('transfer reverts above the balance and to the zero address', async () => {
    expect((await h.write(alice, 'transfer', [bob.address, initialUnits + 1n])).revert).toBe('ERC20: transfer amount exceeds balance')
    expect((await h.write(alice, 'transfer', [zeroAddress, 1n])).revert).toBe('ERC20: transfer to the zero address')
  })

  test('approve / transferFrom / increase / decrease allowance', async () => {
    const approved = await h.write(alice, 'approve', [charlie.address, 5n])
    expect(approved.events).toEqual([event('Approval', { owner: alice.address, spender: charlie.address, value: 5n })])
    expect((await h.write(charlie, 'transferFrom', [alice.address, bob.address, 6n])).revert).toBe('ERC20: transfer amount exceeds allowance')
    const moved = await h.write(charlie, 'transferFrom', [alice.address, bob.address, 5n])
    expect(moved.events).toEqual([event('Transfer', { from: alice.address, to: bob.address, value: 5n })])
    expect(await h.read('allowance', [alice.address, charlie.address])).toBe(0n)
    await h.write(alice, 'increaseAllowance', [charlie.address, 10n])
    expect(await h.read('allowance', [alice.address, charlie.address])).toBe(10n)
    expect((await h.write(alice, 'decreaseAllowance', [charlie.address, 11n])).revert).toBe('ERC20: decreased allowance below zero')
    await h.write(alice, 'decreaseAllowance', [charlie.address, 4n])
    expect(await h.read('allowance', [alice.address, charlie.address])).toBe(6n)
    expect((await h.write(alice, 'approve', [zeroAddress, 1n])).revert).toBe('ERC20: approve to the zero address')
    await h.write(alice, 'approve', [charlie.address, maxUint256])
    expect((await h.write(alice, 'increaseAllowance', [charlie.address, 1n])).revert).toBe('SafeMath: addition overflow')
  })

  test('an allowance of 2^256 - 1 is decremented like any other (USDC has no infinite allowance)', async () => {
    await h.write(alice, 'approve', [charlie.address, maxUint256])
    await h.write(charlie, 'transferFrom', [alice.address, bob.address, 1n])
    expect(await h.read('allowance', [alice.address, charlie.address])).toBe(maxUint256 - 1n)
  })
})

describe('pause', () => {
  test('only the pauser pauses and unpauses; events Pause / Unpause', async () => {
    expect((await h.write(alice, 'pause', [])).revert).toBe('Pausable: caller is not the pauser')
    expect((await h.write(pauser, 'pause', [])).events).toEqual([event('Pause', {})])
    expect(await h.read('paused')).toBe(true)
    expect((await h.write(owner, 'unpause', [])).revert).toBe('Pausable: caller is not the pauser')
    expect((await h.write(pauser, 'unpause', [])).events).toEqual([event('Unpause', {})])
    expect(await h.read('paused')).toBe(false)
  })

  test('blocks transfer, transferFrom, approve, allowance changes, permit, mint, burn, configureMinter and EIP-3009', async () => {
    await h.write(alice, 'approve', [charlie.address, 10n])
    await h.write(pauser, 'pause', [])
    const nonce = nonceOf('paused')
    const calls = [
      [alice, 'transfer', [bob.address, 1n]],
      [charlie, 'transferFrom', [alice.address, bob.address, 1n]],
      [alice, 'approve', [charlie.address, 1n]],
      [alice, 'increaseAllowance', [charlie.address, 1n]],
      [alice, 'decreaseAllowance', [charlie.address, 1n]],
      [charlie, 'permit', [alice.address, charlie.address, 1n, maxUint256, '0x']],
      [minter, 'mint', [bob.address, 1n]],
      [minter, 'burn', [1n]],
      [masterMinter, 'configureMinter', [bob.address, 1n]],
      [charlie, 'transferWithAuthorization', [alice.address, bob.address, 1n, 0n, maxUint256, nonce, '0x']],
      [bob, 'receiveWithAuthorization', [alice.address, bob.address, 1n, 0n, maxUint256, nonce, '0x']],
      [charlie, 'cancelAuthorization', [alice.address, nonce, '0x']],
      [charlie, 'cancelAuthorization', [alice.address, nonce, 27, nonce, nonce]],
    ] as const
    for (const [from, fn, args] of calls) expect((await h.write(from, fn, args)).revert, fn).toBe('Pausable: paused')
    // Views, blacklisting and role management keep working.
    expect(await h.authorizationState(alice.address, nonce)).toBe(false)
    expect(await h.balanceOf(alice.address)).toBe(initialUnits)
    expect((await h.write(blacklister, 'blacklist', [david.address])).status).toBe('success')
    expect((await h.write(masterMinter, 'removeMinter', [minter.address])).status).toBe('success')
    expect((await h.write(owner, 'updatePauser', [david.address])).status).toBe('success')
  })
})

describe('blacklist', () => {
  test('only the blacklister; events Blacklisted / UnBlacklisted; isBlacklisted', async () => {
    expect((await h.write(alice, 'blacklist', [bob.address])).revert).toBe('Blacklistable: caller is not the blacklister')
    expect((await h.write(blacklister, 'blacklist', [bob.address])).events).toEqual([event('Blacklisted', { _account: bob.address })])
    expect(await h.read('isBlacklisted', [bob.address])).toBe(true)
    expect((await h.write(blacklister, 'unBlacklist', [bob.address])).events).toEqual([event('UnBlacklisted', { _account: bob.address })])
    expect(await h.read('isBlacklisted', [bob.address])).toBe(false)
  })

  test('keeps the balance while blacklisted (bit 255 of the same word)', async () => {
    await h.write(blacklister, 'blacklist', [alice.address])
    expect(await h.balanceOf(alice.address)).toBe(initialUnits)
    await h.write(blacklister, 'unBlacklist', [alice.address])
    expect(await h.balanceOf(alice.address)).toBe(initialUnits)
  })

  test('blocks transfer (sender, recipient) and transferFrom (msg.sender, from, to)', async () => {
    await h.write(alice, 'approve', [charlie.address, 100n])
    for (const blocked of [alice, bob]) {
      await h.write(blacklister, 'blacklist', [blocked.address])
      expect((await h.write(alice, 'transfer', [bob.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
      await h.write(blacklister, 'unBlacklist', [blocked.address])
    }
    for (const blocked of [charlie, alice, bob]) {
      await h.write(blacklister, 'blacklist', [blocked.address])
      expect((await h.write(charlie, 'transferFrom', [alice.address, bob.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
      await h.write(blacklister, 'unBlacklist', [blocked.address])
    }
    expect((await h.write(charlie, 'transferFrom', [alice.address, bob.address, 1n])).status).toBe('success')
  })

  test('V2_2: approve and allowance changes are not blacklist-checked', async () => {
    await h.write(blacklister, 'blacklist', [alice.address])
    await h.write(blacklister, 'blacklist', [charlie.address])
    expect((await h.write(alice, 'approve', [charlie.address, 5n])).status).toBe('success')
    expect((await h.write(alice, 'increaseAllowance', [charlie.address, 5n])).status).toBe('success')
    expect((await h.write(alice, 'decreaseAllowance', [charlie.address, 1n])).status).toBe('success')
    expect(await h.read('allowance', [alice.address, charlie.address])).toBe(9n)
  })

  test('blocks mint to a blacklisted account and mint/burn by a blacklisted minter', async () => {
    await h.write(blacklister, 'blacklist', [bob.address])
    expect((await h.write(minter, 'mint', [bob.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
    await h.write(blacklister, 'blacklist', [minter.address])
    expect((await h.write(minter, 'mint', [alice.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
    expect((await h.write(minter, 'burn', [1n])).revert).toBe('Blacklistable: account is blacklisted')
  })

  test('the token contract blacklists itself, as USDC does', async () => {
    expect(await h.read('isBlacklisted', [h.token])).toBe(true)
    expect((await h.write(alice, 'transfer', [h.token, 1n])).revert).toBe('Blacklistable: account is blacklisted')
  })
})

describe('minting', () => {
  test('configureMinter / removeMinter are masterMinter-only and emit events', async () => {
    expect((await h.write(owner, 'configureMinter', [bob.address, 5n])).revert).toBe('FiatToken: caller is not the masterMinter')
    const configured = await h.write(masterMinter, 'configureMinter', [bob.address, 5n])
    expect(configured.events).toEqual([event('MinterConfigured', { minter: bob.address, minterAllowedAmount: 5n })])
    expect(await h.read('isMinter', [bob.address])).toBe(true)
    expect(await h.read('minterAllowance', [bob.address])).toBe(5n)
    expect((await h.write(owner, 'removeMinter', [bob.address])).revert).toBe('FiatToken: caller is not the masterMinter')
    const removed = await h.write(masterMinter, 'removeMinter', [bob.address])
    expect(removed.events).toEqual([event('MinterRemoved', { oldMinter: bob.address })])
    expect(await h.read('isMinter', [bob.address])).toBe(false)
    expect(await h.read('minterAllowance', [bob.address])).toBe(0n)
  })

  test('mint checks and effects', async () => {
    await h.write(masterMinter, 'configureMinter', [bob.address, 5n])
    expect((await h.write(charlie, 'mint', [alice.address, 1n])).revert).toBe('FiatToken: caller is not a minter')
    expect((await h.write(bob, 'mint', [zeroAddress, 1n])).revert).toBe('FiatToken: mint to the zero address')
    expect((await h.write(bob, 'mint', [alice.address, 0n])).revert).toBe('FiatToken: mint amount not greater than 0')
    expect((await h.write(bob, 'mint', [alice.address, 6n])).revert).toBe('FiatToken: mint amount exceeds minterAllowance')
    const supply = await h.read<bigint>('totalSupply')
    const minted = await h.write(bob, 'mint', [charlie.address, 5n])
    expect(minted.events).toEqual([
      event('Mint', { minter: bob.address, to: charlie.address, amount: 5n }),
      event('Transfer', { from: zeroAddress, to: charlie.address, value: 5n }),
    ])
    expect(await h.balanceOf(charlie.address)).toBe(5n)
    expect(await h.read('totalSupply')).toBe(supply + 5n)
    expect(await h.read('minterAllowance', [bob.address])).toBe(0n)
  })

  test('burn checks and effects', async () => {
    await h.write(minter, 'mint', [minter.address, 10n])
    const supply = await h.read<bigint>('totalSupply')
    expect((await h.write(alice, 'burn', [1n])).revert).toBe('FiatToken: caller is not a minter')
    expect((await h.write(minter, 'burn', [0n])).revert).toBe('FiatToken: burn amount not greater than 0')
    expect((await h.write(minter, 'burn', [11n])).revert).toBe('FiatToken: burn amount exceeds balance')
    const burned = await h.write(minter, 'burn', [4n])
    expect(burned.events).toEqual([
      event('Burn', { burner: minter.address, amount: 4n }),
      event('Transfer', { from: minter.address, to: zeroAddress, value: 4n }),
    ])
    expect(await h.balanceOf(minter.address)).toBe(6n)
    expect(await h.read('totalSupply')).toBe(supply - 4n)
  })

  test('a mint that would push a balance past 2^255 - 1 reverts with the V2_2 message', async () => {
    await h.write(minter, 'mint', [bob.address, 1n << 254n])
    expect((await h.write(minter, 'mint', [bob.address, 1n << 254n])).revert).toBe('FiatTokenV2_2: Balance exceeds (2^255 - 1)')
  })
})

describe('roles', () => {
  test('transferOwnership: owner only, non-zero, emits OwnershipTransferred(previous, new)', async () => {
    expect((await h.write(alice, 'transferOwnership', [alice.address])).revert).toBe('Ownable: caller is not the owner')
    expect((await h.write(owner, 'transferOwnership', [zeroAddress])).revert).toBe('Ownable: new owner is the zero address')
    const moved = await h.write(owner, 'transferOwnership', [alice.address])
    expect(moved.events).toEqual([event('OwnershipTransferred', { previousOwner: owner.address, newOwner: alice.address })])
    expect(await h.read('owner')).toBe(alice.address)
    expect((await h.write(owner, 'updatePauser', [bob.address])).revert).toBe('Ownable: caller is not the owner')
  })

  const updates = [
    ['updatePauser', 'pauser', 'PauserChanged', 'newAddress', 'Pausable: new pauser is the zero address'],
    ['updateBlacklister', 'blacklister', 'BlacklisterChanged', 'newBlacklister', 'Blacklistable: new blacklister is the zero address'],
    ['updateMasterMinter', 'masterMinter', 'MasterMinterChanged', 'newMasterMinter', 'FiatToken: new masterMinter is the zero address'],
    ['updateRescuer', 'rescuer', 'RescuerChanged', 'newRescuer', 'Rescuable: new rescuer is the zero address'],
  ] as const
  test.each(updates)('%s: owner only, non-zero, emits %s', async (fn, getter, eventName, arg, zeroMessage) => {
    expect((await h.write(alice, fn, [bob.address])).revert).toBe('Ownable: caller is not the owner')
    expect((await h.write(owner, fn, [zeroAddress])).revert).toBe(zeroMessage)
    const outcome = await h.write(owner, fn, [bob.address])
    expect(outcome.events).toEqual([event(eventName, { [arg]: bob.address })])
    expect(await h.read(getter)).toBe(bob.address)
  })

  test('the new pauser / blacklister / masterMinter take over their powers', async () => {
    await h.write(owner, 'updatePauser', [bob.address])
    expect((await h.write(pauser, 'pause', [])).revert).toBe('Pausable: caller is not the pauser')
    expect((await h.write(bob, 'pause', [])).status).toBe('success')
    await h.write(owner, 'updateBlacklister', [charlie.address])
    expect((await h.write(blacklister, 'blacklist', [david.address])).revert).toBe('Blacklistable: caller is not the blacklister')
    expect((await h.write(charlie, 'blacklist', [david.address])).status).toBe('success')
    await h.write(owner, 'updateMasterMinter', [david.address])
    expect((await h.write(masterMinter, 'removeMinter', [minter.address])).revert).toBe('FiatToken: caller is not the masterMinter')
    expect((await h.write(david, 'removeMinter', [minter.address])).status).toBe('success')
  })

  test('rescueERC20 is rescuer-only and moves tokens held by the contract', async () => {
    expect((await h.write(alice, 'rescueERC20', [h.token, bob.address, 1n])).revert).toBe('Rescuable: caller is not the rescuer')
    await h.write(owner, 'updateRescuer', [david.address])
    // The token is blacklisted for itself, so rescuing its own balance bubbles the blacklist revert.
    expect((await h.write(david, 'rescueERC20', [h.token, bob.address, 1n])).revert).toBe('Blacklistable: account is blacklisted')
    expect((await h.write(david, 'rescueERC20', [alice.address, bob.address, 1n])).revert).toBe('Address: call to non-contract')
  })

  test('an EIP-3009 authorization signed for one token is invalid for another domain', async () => {
    const other = await createHarness({ name: 'USD Coin' })
    const a = { from: alice.address, to: bob.address, value: 1n, validAfter: 0n, validBefore: maxUint256, nonce: nonceOf('x') }
    const signature = await signTyped(h, alice, 'TransferWithAuthorization', a)
    const outcome = await other.write(charlie, 'transferWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature])
    expect(outcome.revert).toBe('FiatTokenV2: invalid signature')
  })
})

import { type Address, type Hex, BaseError, ContractFunctionRevertedError, parseGwei } from 'viem'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createDevnet } from '../../src/index.js'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { account, startTestDevnet } from '../utils.js'
import { tempDir } from '../tempDir.js'

// The token cheats through viem against a devnet over HTTP: no owner, pauser or
// blacklister key is used anywhere here.
let t: Awaited<ReturnType<typeof startTestDevnet>>
let token: Address
const alice = account(1)
const bob = account(2)
const carol = account(3)

beforeAll(async () => {
  t = await startTestDevnet()
  token = t.devnet.token.address
})
afterAll(async () => {
  await t.devnet.close()
})

const balanceOf = (who: Address, blockTag: 'latest' | 'pending' = 'latest') =>
  t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'balanceOf', args: [who], blockTag })
const isBlacklisted = (who: Address) =>
  t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'isBlacklisted', args: [who] })
const totalSupply = (blockTag: 'latest' | 'pending' = 'latest') =>
  t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'totalSupply', blockTag })
const paused = () => t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'paused' })

/** The revert reason of a simulated transfer, or 'ok'. */
async function simulateTransfer(from: typeof alice, to: Address, value: bigint): Promise<string> {
  try {
    await t.publicClient.simulateContract({ account: from, address: token, abi: paymentTokenAbi, functionName: 'transfer', args: [to, value], blockTag: 'pending' })
    return 'ok'
  } catch (error) {
    const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? 'reverted without reason'
    throw error
  }
}

/** Sends a transfer with explicit gas (no estimation), pre-confirms it, returns its receipt status. */
async function sendTransfer(from: typeof alice, to: Address, value: bigint) {
  const hash = await t.walletClient.writeContract({
    account: from, chain: t.devnet.chain, address: token, abi: paymentTokenAbi, functionName: 'transfer', args: [to, value],
    gas: 100_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })
  await t.rpc('devnet_preconfirm')
  return { hash, status: (await t.rpc('eth_getTransactionReceipt', [hash])).result.status as Hex }
}

/** Runs a cheat and checks it answered `null`, as Anvil's state cheats do. */
async function cheat(method: string, params: unknown[]) {
  expect(await t.rpc(method, params)).toEqual({ jsonrpc: '2.0', id: 1, result: null })
}

beforeEach(async () => {
  // Each test starts from a sealed, unpaused token with no blacklisted cast.
  await t.rpc('devnet_seal')
  for (const who of [alice, bob, carol]) await cheat('devnet_setTokenBlacklisted', [who.address, false])
  await cheat('devnet_setTokenPaused', [false])
})

describe('devnet_setTokenBalance', () => {
  test('sets balanceOf at latest and pending at once and moves totalSupply by the difference', async () => {
    const before = await balanceOf(alice.address)
    const supply = await totalSupply()
    await cheat('devnet_setTokenBalance', [alice.address, '0x5f5e100'])
    expect(await balanceOf(alice.address)).toBe(100_000_000n)
    expect(await balanceOf(alice.address, 'pending')).toBe(100_000_000n)
    expect(await totalSupply()).toBe(supply - before + 100_000_000n)
    expect(await totalSupply('pending')).toBe(supply - before + 100_000_000n)
    // The sealed block is unchanged; the next one carries the state on.
    await t.rpc('devnet_seal')
    expect(await balanceOf(alice.address)).toBe(100_000_000n)
  })

  test('accepts a decimal amount and zero, which clears the slot', async () => {
    const supply = await totalSupply()
    const before = await balanceOf(carol.address)
    await cheat('devnet_setTokenBalance', [carol.address, '2500000'])
    expect(await balanceOf(carol.address)).toBe(2_500_000n)
    await cheat('devnet_setTokenBalance', [carol.address, '0x0'])
    expect(await balanceOf(carol.address)).toBe(0n)
    expect(await totalSupply()).toBe(supply - before)
  })

  test('pre-confirmed transfers run again on top of the new balance', async () => {
    await cheat('devnet_setTokenBalance', [alice.address, '0x3e8'])
    const { status } = await sendTransfer(alice, bob.address, 400n)
    expect(status).toBe('0x1')
    expect(await balanceOf(alice.address, 'pending')).toBe(600n)
    await cheat('devnet_setTokenBalance', [alice.address, '0x7d0'])
    expect(await balanceOf(alice.address)).toBe(2000n)
    expect(await balanceOf(alice.address, 'pending')).toBe(1600n)
  })

  test('keeps the blacklist flag packed in the same word', async () => {
    await cheat('devnet_setTokenBlacklisted', [carol.address, true])
    await cheat('devnet_setTokenBalance', [carol.address, '0x64'])
    expect(await isBlacklisted(carol.address)).toBe(true)
    expect(await balanceOf(carol.address)).toBe(100n)
  })
})

describe('devnet_setTokenPaused', () => {
  test('pausing blocks transfers with "Pausable: paused", unpausing restores them', async () => {
    expect(await simulateTransfer(alice, bob.address, 1n)).toBe('ok')
    await cheat('devnet_setTokenPaused', [true])
    expect(await paused()).toBe(true)
    expect(await simulateTransfer(alice, bob.address, 1n)).toBe('Pausable: paused')
    expect((await sendTransfer(alice, bob.address, 1n)).status).toBe('0x0')

    await cheat('devnet_setTokenPaused', [false])
    expect(await paused()).toBe(false)
    const bobBefore = await balanceOf(bob.address, 'pending')
    expect((await sendTransfer(alice, bob.address, 1n)).status).toBe('0x1')
    expect(await balanceOf(bob.address, 'pending')).toBe(bobBefore + 1n)
  })

  test('keeps the pauser packed in the same slot', async () => {
    const pauser = await t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'pauser' })
    await cheat('devnet_setTokenPaused', [true])
    expect(await t.publicClient.readContract({ address: token, abi: paymentTokenAbi, functionName: 'pauser' })).toBe(pauser)
  })
})

describe('devnet_setTokenBlacklisted', () => {
  test('a blacklisted sender or recipient cannot transfer; unblacklisting restores it', async () => {
    const balance = await balanceOf(alice.address)
    await cheat('devnet_setTokenBlacklisted', [alice.address, true])
    expect(await isBlacklisted(alice.address)).toBe(true)
    expect(await balanceOf(alice.address)).toBe(balance)
    expect(await simulateTransfer(alice, bob.address, 1n)).toBe('Blacklistable: account is blacklisted')
    expect(await simulateTransfer(bob, alice.address, 1n)).toBe('Blacklistable: account is blacklisted')

    await cheat('devnet_setTokenBlacklisted', [alice.address, false])
    expect(await isBlacklisted(alice.address)).toBe(false)
    expect(await balanceOf(alice.address)).toBe(balance)
    expect(await simulateTransfer(alice, bob.address, 1n)).toBe('ok')
  })

  test('a pre-confirmed transfer from an account blacklisted afterwards reverts when run again', async () => {
    const { hash, status } = await sendTransfer(alice, bob.address, 5n)
    expect(status).toBe('0x1')
    await cheat('devnet_setTokenBlacklisted', [alice.address, true])
    expect((await t.rpc('eth_getTransactionReceipt', [hash])).result.status).toBe('0x0')
  })
})

describe('bad arguments', () => {
  test.each([
    ['devnet_setTokenBalance', []],
    ['devnet_setTokenBalance', ['0x1234', '0x1']],
    ['devnet_setTokenBalance', [alice.address, '-1']],
    ['devnet_setTokenBalance', [alice.address, 1.5]],
    ['devnet_setTokenBalance', [alice.address, `0x8${'0'.repeat(63)}`]],
    ['devnet_setTokenPaused', ['yes']],
    ['devnet_setTokenPaused', []],
    ['devnet_setTokenBlacklisted', [alice.address]],
    ['devnet_setTokenBlacklisted', [alice.address, 1]],
  ])('%s %j → -32602', async (method, params) => {
    const response = await t.rpc(method, params)
    expect(response.error?.code).toBe(-32602)
  })
})

describe('a chain without the token', () => {
  test('an imported geth genesis has no token to write into: -32000, nothing changes', async () => {
    const dir = tempDir('devnet-token-')
    const genesis = join(dir, 'genesis.json')
    const forks = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london']
    writeFileSync(genesis, JSON.stringify({
      config: { chainId: 1337, ...Object.fromEntries(forks.map((f) => [`${f}Block`, 0])), terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0,
        blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } } },
      gasLimit: '0x1c9c380', difficulty: '0x0', alloc: {},
    }))
    const imported = await createDevnet({ genesis, mining: 'manual', clock: 'virtual', quiet: true })
    try {
      const before = await imported.request({ method: 'eth_getBlockByNumber', params: ['latest', false] } as never)
      await expect(imported.request({ method: 'devnet_setTokenPaused', params: [true] } as never)).rejects.toMatchObject({
        code: -32000,
        message: expect.stringContaining('no payment token deployed'),
      })
      expect(await imported.request({ method: 'eth_getBlockByNumber', params: ['latest', false] } as never)).toEqual(before)
    } finally {
      await imported.close()
    }
  })
})

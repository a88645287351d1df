import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, encodeFunctionData, getContractAddress, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { describeFixture } from '../../src/cli/fixture.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import { readFixtureFile } from '../../src/node/fixture/file.js'
import { type LooseRpc, account } from '../utils.js'
import { send } from './send.js'

/*
 * A fixture of a fork. A devnet plays the upstream ("remote"), a second one
 * forks it, reads, seals local blocks, cheats and pre-confirms; its fixture
 * (file and JSON object) is then loaded after the remote is closed: the
 * loaded fork must have the same head, state and reads, with no network.
 */

const recipients = ['0x2000000000000000000000000000000000000001', '0x2000000000000000000000000000000000000002'] as const
// Constructor: SSTORE(1, 0x2a), then return the runtime `return sload(calldataload(0))`.
const initCode = '0x602a600155600c601160003960' + '0c6000f3600035546000526020' + '6000f3'
const hex = (n: bigint) => `0x${n.toString(16)}`
const transfer = (to: Hex, units: bigint) => encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [to, units] })
const balanceOf = (who: Hex) => encodeFunctionData({ abi: paymentTokenAbi, functionName: 'balanceOf', args: [who] })

let dir: string
let token: Hex
let contract: Hex
let pin: bigint
let file: string
let object: unknown
/** What the fork answered before its fixture was taken; the loaded forks must answer the same. */
let reads: Record<string, unknown>
let forkStatus: { fork: Record<string, unknown>; head: unknown }
let remoteUrl: string
/** The upstream, kept for the load with --fork-url; closed by that test so the ones after it load with the upstream gone. */
let remote: StartedDevnet | undefined
/** An account the fork never read, funded on the upstream below the pin. */
const unread = '0x00000000000000000000000000000000000000f1'

const readAll = async (devnet: StartedDevnet) => {
  const call = (method: string, params: unknown[]) => devnet.request<LooseRpc>({ method, params })
  const head = await call('eth_getBlockByNumber', ['latest', false])
  return {
    head,
    blockNumber: await call('eth_blockNumber', []),
    firstLocal: await call('eth_getBlockByNumber', [hex(pin + 1n), true]),
    pinBlock: await call('eth_getBlockByNumber', [hex(pin), false]),
    below: await call('eth_getBlockByNumber', ['0x1', false]),
    logs: await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: token }]),
    balances: await Promise.all([...recipients, account(0).address].map((who) => call('eth_getBalance', [who, 'latest']))),
    tokenBalances: await Promise.all(recipients.map((who) => call('eth_call', [{ to: token, data: balanceOf(who) }, 'latest']))),
    pendingBalance: await call('eth_call', [{ to: token, data: balanceOf(recipients[1]) }, 'pending']),
    atPin: await call('eth_getBalance', [recipients[0], hex(pin)]),
    // Block pin + 1 was the head when anvil_setBalance ran: it reads at the cheated state (format.ts cheatedRoots).
    cheatedBelow: await call('eth_getBalance', [recipients[1], hex(pin + 1n)]),
    code: await call('eth_getCode', [contract, 'latest']),
    slot: await call('eth_getStorageAt', [contract, '0x1', 'latest']),
    blockhash: await call('eth_call', [{ data: `0x61${(pin - 1n).toString(16).padStart(4, '0')}4060005260206000f3` }, 'latest']),
    nonce: await call('eth_getTransactionCount', [account(0).address, 'pending']),
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'devnet-fork-fixture-'))
  remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  remoteUrl = remote.url
  token = remote.token.address
  await send(remote, 0, { to: token, data: transfer(recipients[0], 3_000_000n) })
  await send(remote, 1, { to: recipients[0], value: parseEther('1') })
  await send(remote, 2, { data: initCode as Hex })
  await send(remote, 3, { to: unread, value: 7n })
  contract = getContractAddress({ from: account(2).address, nonce: 0n })
  await remote.seal()
  await remote.request<LooseRpc>({ method: 'anvil_mine', params: [hex(20n)] })
  pin = await remote.node.chain.height()

  const fork = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fork: { url: remote.url, blockNumber: Number(pin), cacheDir: join(dir, 'cache') } })
  await send(fork, 0, { to: token, data: transfer(recipients[1], 1_000_000n) })
  await fork.seal()
  await fork.request<LooseRpc>({ method: 'anvil_setBalance', params: [recipients[1], '0x1234'] })
  await fork.seal()
  // Zeroes an upstream slot (a tombstone in the local trie) and leaves a transfer pre-confirmed.
  await fork.request<LooseRpc>({ method: 'devnet_setTokenBalance', params: [recipients[0], '0x0'] })
  await send(fork, 0, { to: token, data: transfer(recipients[1], 5n) })
  await fork.preconfirm()
  reads = await readAll(fork)
  forkStatus = await fork.request<LooseRpc>({ method: 'devnet_status', params: [] })
  file = join(dir, 'fork.json')
  await fork.node.dumpFixtureToFile(file)
  object = await fork.request<LooseRpc>({ method: 'devnet_dumpFixture', params: [] })
  await fork.close()
}, 30_000)

afterAll(async () => {
  await remote?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('fixtures of a fork', () => {
  test('the fixture records the pin, what was read, and only the local blocks', () => {
    const fixture = object as { fork: Record<string, unknown> & { reads: { accounts: object } }; blocks: unknown[] }
    expect(fixture.fork).toMatchObject({ chainId: '0x7a69', blockNumber: hex(pin), blockHash: (reads.pinBlock as { hash: Hex }).hash })
    expect(fixture.fork.upstream).toBe(remoteUrl)
    expect(Object.keys(fixture.fork.reads.accounts)).toContain(token.toLowerCase())
    expect(fixture.blocks.length).toBe(2)
    expect(reads.cheatedBelow).toBe('0x1234')
    expect((object as { cheatedRoots?: { number: Hex }[] }).cheatedRoots?.map((c) => c.number)).toEqual([hex(pin + 1n)])
  })

  test('devnet fixture inspect says what fork it is of', async () => {
    const { fixture, bytes } = await readFixtureFile(file)
    const text = describeFixture(fixture, bytes)
    expect(text).toContain(`fork of:       ${remoteUrl} (chain 31337) at block ${pin}`)
    expect(text).toContain(`blocks:        2 local (above the fork block, to ${pin + 2n})`)
    expect(text).toContain(`cheats:        below the head at block ${pin + 1n} (read at their cheated state)`)
  })

  test('with --fork-url, a loaded fixture reads what it lacks from the upstream at the pin, and records it', async () => {
    const upstream = remote!
    // The upstream moves on past the pin: the loaded fork must still read at the pin.
    await send(upstream, 3, { to: unread, value: 5n })
    await upstream.seal()
    const loaded = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file, fork: { url: upstream.url } })
    try {
      expect(await readAll(loaded)).toEqual(reads)
      const call = (method: string, params: unknown[]) => loaded.request<LooseRpc>({ method, params })
      expect(await call('eth_getBalance', [unread, 'latest'])).toBe('0x7')
      expect(await call('eth_getBalance', [unread, hex(pin)])).toBe('0x7')
      // History below the pin the fork never read: the upstream's block.
      expect(await call('eth_getBlockByNumber', ['0x2', false])).toEqual(await upstream.request<LooseRpc>({ method: 'eth_getBlockByNumber', params: ['0x2', false] }))
      const status = await call('devnet_status', [])
      expect(status.fork).toMatchObject({ chainId: '0x7a69', blockNumber: hex(pin), blockHash: (reads.pinBlock as { hash: Hex }).hash })
      expect(status.fork.remoteCalls.requests).toBeGreaterThan(0)
      // What it read joins the fork's reads: a fixture of the loaded fork holds them, and loads offline.
      const again = (await call('devnet_dumpFixture', [])) as { fork: { reads: { accounts: Record<string, unknown> } } }
      expect(again.fork.reads.accounts[unread]).toEqual(['0x0', '0x7', '0x'])
    } finally {
      await loaded.close()
    }
    // An upstream that is not the fixture's chain at the pin is refused, not read from.
    const other = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, mnemonic: 'test test test test test test test test test test test junk' })
    try {
      await other.request<LooseRpc>({ method: 'anvil_mine', params: [hex(pin + 5n)] })
      await expect(startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file, fork: { url: other.url } })).rejects.toThrow(
        `the fixture was recorded at ${(reads.pinBlock as { hash: Hex }).hash}`,
      )
    } finally {
      await other.close()
    }
    // Another fork block than the fixture's pin is refused with the reason, not ignored; the pin itself is fine.
    await expect(
      startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file, fork: { url: upstream.url, blockNumber: Number(pin) - 1 } }),
    ).rejects.toThrow(`the fixture is of a fork at block ${pin}, but fork.blockNumber asks for block ${pin - 1n}`)
    const atPin = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file, fork: { url: upstream.url, blockNumber: Number(pin) } })
    await atPin.close()
    await upstream.close()
    remote = undefined
  })

  test('a devnet started from the file, with the upstream gone, has the same head, state and reads', async () => {
    const loaded = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file })
    try {
      expect(await readAll(loaded)).toEqual(reads)
      const status = await loaded.request<LooseRpc>({ method: 'devnet_status', params: [] })
      expect(status.head).toEqual(forkStatus.head)
      expect(status.fork).toMatchObject({ chainId: '0x7a69', blockNumber: hex(pin), upstream: remoteUrl })
      expect(status.fork.remoteCalls).toEqual({ http: 0, requests: 0, retries: 0 })
      // What the fork never read is not in the fixture: a clear error, not a zero.
      await expect(loaded.request<LooseRpc>({ method: 'eth_getBalance', params: ['0x00000000000000000000000000000000000000f1', 'latest'] })).rejects.toThrow(
        'this fork was loaded from a fixture, which did not record this read',
      )
      // The loaded fork goes on: a sealed block on top of the fixture's chain.
      await loaded.seal()
      expect(BigInt(await loaded.request<LooseRpc>({ method: 'eth_call', params: [{ to: token, data: balanceOf(recipients[1]) }, 'latest'] }))).toBe(1_000_005n)
      // devnet_loadFixture with the JSON object (version 1) puts the fixture's chain back.
      await loaded.request<LooseRpc>({ method: 'devnet_loadFixture', params: [object] })
      expect(await readAll(loaded)).toEqual(reads)
    } finally {
      await loaded.close()
    }
  })

  test('a fork fixture is refused by a chain from genesis, and the other way round, with the reason', async () => {
    const plain = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    const loaded = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fixture: file })
    try {
      await expect(plain.request<LooseRpc>({ method: 'devnet_loadFixture', params: [object] })).rejects.toThrow(`the fixture is of a fork at block ${pin}`)
      const own = await plain.request<LooseRpc>({ method: 'devnet_dumpFixture', params: [] })
      await expect(loaded.request<LooseRpc>({ method: 'devnet_loadFixture', params: [own] })).rejects.toThrow('cannot load a fixture of a chain from genesis into a fork')
      const tampered = structuredClone(object) as { fork: { blockNumber: string } }
      tampered.fork.blockNumber = 'ten'
      await expect(loaded.request<LooseRpc>({ method: 'devnet_loadFixture', params: [tampered] })).rejects.toThrow('fork.blockNumber: expected a 0x quantity')
    } finally {
      await plain.close()
      await loaded.close()
    }
  })
})

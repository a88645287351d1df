import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, encodeAbiParameters, encodeFunctionData, getContractAddress, keccak256, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { tombstoneAddress } from '../../src/evm/forkState.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import { connect } from '../logs/helpers.js'
import { type LooseRpc, account } from '../utils.js'
import { send } from './send.js'

/*
 * A devnet plays the upstream ("remote"): token transfers, a contract with
 * storage, ETH sends, then a few hundred empty blocks. A second devnet forks
 * it at a pin, and every read is compared with the remote's answer at the pin.
 */

const recipients = [
  '0x1000000000000000000000000000000000000001',
  '0x1000000000000000000000000000000000000002',
  '0x1000000000000000000000000000000000000003',
] as const
// Constructor: SSTORE(1, 0x2a), then return the runtime `return sload(calldataload(0))`.
const runtime = '600035546000526020 6000f3'.replace(/ /g, '')
const initCode = `0x602a600155600c601160003960 0c6000f3${runtime}`.replace(/ /g, '') as Hex

let remote: StartedDevnet
let fork: StartedDevnet
let cacheDir: string
let pin: bigint
let contract: Hex
const remoteCall = (method: string, params: unknown[] = []) => remote.request<LooseRpc>({ method, params })
const forkCall = (method: string, params: unknown[] = []) => fork.request<LooseRpc>({ method, params })
const hex = (n: bigint) => `0x${n.toString(16)}`

const transfer = (to: Hex, units: bigint) =>
  encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [to, units] })
const balanceOf = (who: Hex) => encodeFunctionData({ abi: paymentTokenAbi, functionName: 'balanceOf', args: [who] })

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'devnet-fork-'))
  remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const token = remote.token.address
  for (const [i, to] of recipients.entries()) {
    await send(remote, 0, { to: token, data: transfer(to, BigInt(i + 1) * 1_000_000n) })
    await send(remote, 1, { to, value: parseEther('1') })
    await remote.seal()
  }
  await send(remote, 2, { data: initCode })
  contract = getContractAddress({ from: account(2).address, nonce: 0n })
  await remote.seal()
  await remoteCall('anvil_mine', [hex(400n)])
  await send(remote, 0, { to: token, data: transfer(recipients[0], 5_000_000n) })
  await remote.seal()
  pin = await remote.node.chain.height()
  // After the pin: the fork must not see these.
  await send(remote, 0, { to: token, data: transfer(recipients[1], 7_000_000n) })
  await send(remote, 1, { to: recipients[2], value: parseEther('3') })
  await remote.seal()
  fork = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, fork: { url: remote.url, blockNumber: Number(pin), cacheDir } })
}, 30_000)

afterAll(async () => {
  await fork?.close()
  await remote?.close()
  rmSync(cacheDir, { recursive: true, force: true })
})

test('the tombstones\' account is keccak("devnet.fork.tombstones")[12:], as written out in src/evm/forkState.ts', () => {
  expect(tombstoneAddress.toString()).toBe(`0x${keccak256(new TextEncoder().encode('devnet.fork.tombstones')).slice(26)}`)
})

describe('fork: reads at the pin', () => {
  test('chain id, head and the first local block', async () => {
    expect(await forkCall('eth_chainId')).toBe(await remoteCall('eth_chainId'))
    expect(BigInt(await forkCall('eth_blockNumber'))).toBe(pin)
    // Before a local seal, `latest` is the upstream's fork block, with its transactions.
    expect(await forkCall('eth_getBlockByNumber', ['latest', true])).toEqual(await remoteCall('eth_getBlockByNumber', [hex(pin), true]))
    expect(fork.node.fork!.blockHash).toBe((await remoteCall('eth_getBlockByNumber', [hex(pin), false])).hash)
    const { fork: status } = await forkCall('devnet_status')
    expect(status).toMatchObject({ upstream: remote.url, chainId: '0x7a69', blockNumber: hex(pin), blockHash: fork.node.fork!.blockHash })
    expect(status.remoteCalls.http).toBeGreaterThan(0)
  })

  test('balances, nonces, code and storage equal the remote at the pin', async () => {
    const at = hex(pin)
    for (const who of [...recipients, contract, remote.token.address])
      expect(await forkCall('eth_getBalance', [who, 'latest']), who).toBe(await remoteCall('eth_getBalance', [who, at]))
    for (const i of [0, 1, 2]) {
      const who = account(i).address
      expect(await forkCall('eth_getTransactionCount', [who, 'latest'])).toBe(await remoteCall('eth_getTransactionCount', [who, at]))
    }
    for (const who of [contract, remote.token.address])
      expect(await forkCall('eth_getCode', [who, 'latest'])).toBe(await remoteCall('eth_getCode', [who, at]))
    for (const slot of ['0x1', '0x2', '0xb', '0x4'])
      for (const who of [contract, remote.token.address])
        expect(await forkCall('eth_getStorageAt', [who, slot, 'latest'])).toBe(await remoteCall('eth_getStorageAt', [who, slot, at]))
  })

  test('token balances (eth_call) equal the remote at the pin, not after it', async () => {
    const token = remote.token.address
    for (const who of recipients) {
      const there = await remoteCall('eth_call', [{ to: token, data: balanceOf(who) }, hex(pin)])
      expect(await forkCall('eth_call', [{ to: token, data: balanceOf(who) }, 'latest'])).toBe(there)
    }
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[1]) }, 'latest']))).toBe(2_000_000n)
    expect(BigInt(await forkCall('eth_call', [{ to: contract, data: `0x${'0'.repeat(63)}1` }, 'latest']))).toBe(42n)
  })

  test('blocks, transactions, receipts and logs below the pin are the remote\'s', async () => {
    for (const n of [1n, 3n, pin - 1n, pin]) {
      const mine = await forkCall('eth_getBlockByNumber', [hex(n), true])
      expect(mine).toEqual(await remoteCall('eth_getBlockByNumber', [hex(n), true]))
    }
    const block1 = await remoteCall('eth_getBlockByNumber', ['0x1', false])
    expect(await forkCall('eth_getBlockByHash', [block1.hash, false])).toEqual(block1)
    const txHash = block1.transactions[0]
    expect(await forkCall('eth_getTransactionReceipt', [txHash])).toEqual(await remoteCall('eth_getTransactionReceipt', [txHash]))
    expect(await forkCall('eth_getTransactionByHash', [txHash])).toEqual(await remoteCall('eth_getTransactionByHash', [txHash]))
    const filter = { fromBlock: '0x0', toBlock: hex(pin), address: remote.token.address }
    const logs = await forkCall('eth_getLogs', [filter])
    expect(logs).toEqual(await remoteCall('eth_getLogs', [filter]))
    expect(logs.length).toBe(4)
    // A block the remote sealed after the pin is not on the fork, by number or by hash.
    const after = await remoteCall('eth_getBlockByNumber', [hex(pin + 1n), false])
    expect(await forkCall('eth_getBlockByHash', [after.hash, false])).toBe(null)
    expect(await forkCall('eth_getTransactionByHash', [after.transactions[0]])).toBe(null)
    // State at a block below the pin is the remote's at that block.
    expect(await forkCall('eth_getBalance', [recipients[0], '0x1'])).toBe(await remoteCall('eth_getBalance', [recipients[0], '0x1']))
  })
})

describe('fork: fee history and traces below the pin', () => {
  test('are the remote\'s, and a tracer error names the upstream', async () => {
    const history = ['0x5', hex(pin - 1n), [25, 75]]
    expect(await forkCall('eth_feeHistory', history)).toEqual(await remoteCall('eth_feeHistory', history))
    const block1 = await remoteCall('eth_getBlockByNumber', ['0x1', false])
    const txHash = block1.transactions[0]
    const tracer = { tracer: 'callTracer' }
    expect(await forkCall('debug_traceTransaction', [txHash, tracer])).toEqual(await remoteCall('debug_traceTransaction', [txHash, tracer]))
    expect(await forkCall('debug_traceBlockByNumber', ['0x1', tracer])).toEqual(await remoteCall('debug_traceBlockByNumber', ['0x1', tracer]))
    expect(await forkCall('debug_getRawBlock', ['0x1'])).toBe(await remoteCall('debug_getRawBlock', ['0x1']))
    await expect(forkCall('debug_traceBlockByNumber', ['0x1', { tracer: 'noSuchTracer' }])).rejects.toThrow(`fork upstream ${remote.url} failed debug_traceBlockByNumber`)
  })
})

describe('fork: local blocks', () => {
  test('continue from the pin: number, parent hash, timestamp', async () => {
    const sealed = await fork.seal()
    expect(sealed.number).toBe(pin + 1n)
    const block = await forkCall('eth_getBlockByNumber', [hex(pin + 1n), false])
    const parent = await remoteCall('eth_getBlockByNumber', [hex(pin), false])
    expect(block.parentHash).toBe(parent.hash)
    expect(BigInt(block.timestamp)).toBeGreaterThan(BigInt(parent.timestamp))
  })

  test('a token transfer is pre-confirmed under pending, then sealed; logs span the boundary', async () => {
    const token = remote.token.address
    const before = BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[2]) }, 'latest']))
    const hash = await send(fork, 0, { to: token, data: transfer(recipients[2], 1_000_000n) })
    await fork.preconfirm()
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[2]) }, 'pending']))).toBe(before + 1_000_000n)
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[2]) }, 'latest']))).toBe(before)
    const sealed = await fork.seal()
    expect((await forkCall('eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[2]) }, 'latest']))).toBe(before + 1_000_000n)
    const logs = await forkCall('eth_getLogs', [{ fromBlock: hex(pin - 10n), toBlock: 'latest', address: token }])
    expect(logs.map((l: { blockNumber: Hex }) => BigInt(l.blockNumber))).toEqual([pin, sealed.number])
    // The remote's transfer after the pin is not on the fork.
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[1]) }, 'latest']))).toBe(2_000_000n)
  })

  test('polling filters below and across the pin read the upstream as eth_getLogs does; changes are new local blocks', async () => {
    const token = remote.token.address
    const numbers = (logs: { blockNumber: Hex }[]) => logs.map((l) => BigInt(l.blockNumber))
    const across = { fromBlock: hex(pin - 10n), toBlock: 'latest', address: token }
    const below = { fromBlock: '0x0', toBlock: hex(pin), address: token }
    const acrossId = await forkCall('eth_newFilter', [across])
    const belowId = await forkCall('eth_newFilter', [below])
    const acrossLogs = await forkCall('eth_getFilterLogs', [acrossId])
    expect(acrossLogs).toEqual(await forkCall('eth_getLogs', [across]))
    expect(numbers(acrossLogs)).toEqual([pin, pin + 2n])
    const belowLogs = await forkCall('eth_getFilterLogs', [belowId])
    expect(belowLogs).toEqual(await remoteCall('eth_getLogs', [below]))
    expect(belowLogs.length).toBe(4)
    // By the hash of an upstream block below the pin, and of the pin block itself (its logs are the upstream's).
    for (const n of [1n, pin]) {
      const { hash } = await remoteCall('eth_getBlockByNumber', [hex(n), false])
      const id = await forkCall('eth_newFilter', [{ blockHash: hash }])
      const logs = await forkCall('eth_getFilterLogs', [id])
      expect(logs).toEqual(await remoteCall('eth_getLogs', [{ blockHash: hash }]))
      expect(logs.length).toBeGreaterThan(0)
    }
    // A block the remote sealed after the pin is not this chain's.
    const after = await remoteCall('eth_getBlockByNumber', [hex(pin + 1n), false])
    await expect(forkCall('eth_newFilter', [{ blockHash: after.hash }])).rejects.toThrow('header not found')
    // Changes are the logs of blocks sealed after the filter was installed (as geth): local ones only.
    expect(await forkCall('eth_getFilterChanges', [acrossId])).toEqual([])
    // To an address no later test reads.
    await send(fork, 0, { to: token, data: transfer('0x1000000000000000000000000000000000000009', 1n) })
    const sealed = await fork.seal()
    expect(numbers(await forkCall('eth_getFilterChanges', [acrossId]))).toEqual([sealed.number])
    expect(await forkCall('eth_getFilterChanges', [belowId])).toEqual([])
    expect(numbers(await forkCall('eth_getFilterLogs', [acrossId]))).toEqual([pin, pin + 2n, sealed.number])
  })

  test('logs subscriptions with a range below or across the pin: new local logs within it, nothing from before (as geth)', async () => {
    const token = remote.token.address
    const ws = await connect(fork.wsUrl)
    try {
      const head = BigInt(await forkCall('eth_blockNumber'))
      const across = await ws.call('eth_subscribe', ['logs', { address: token, fromBlock: hex(pin - 10n) }])
      const below = await ws.call('eth_subscribe', ['logs', { address: token, fromBlock: '0x0', toBlock: hex(pin - 1n) }])
      const firstOnly = await ws.call('eth_subscribe', ['logs', { address: token, fromBlock: 'earliest', toBlock: hex(head + 1n) }])
      expect((await ws.request('eth_subscribe', ['logs', { fromBlock: hex(pin), toBlock: hex(pin - 1n) }])).error).toEqual({
        code: -32000,
        message: 'invalid from and to block combination',
      })
      // Subscribed last: once its header of the second block is in, the others' notifications of it are too.
      const heads = await ws.call('eth_subscribe', ['newHeads'])
      for (const to of ['0x100000000000000000000000000000000000000a', '0x100000000000000000000000000000000000000b'] as const) {
        await send(fork, 0, { to: token, data: transfer(to, 1n) })
        await fork.seal()
      }
      for (let i = 0; i < 500 && ws.received(heads).length < 2; i++) await new Promise((r) => setTimeout(r, 10))
      const numbers = (id: string) => (ws.received(id) as { blockNumber: Hex }[]).map((l) => BigInt(l.blockNumber))
      // No upstream backfill: only the blocks sealed since, which are local.
      expect(numbers(across)).toEqual([head + 1n, head + 2n])
      expect(numbers(below)).toEqual([])
      expect(numbers(firstOnly)).toEqual([head + 1n])
    } finally {
      ws.socket.close()
    }
  })

  test('BLOCKHASH reaches below the fork block', async () => {
    const n = pin - 2n
    // Init code: return blockhash(n).
    const data = `0x61${n.toString(16).padStart(4, '0')}4060005260206000f3` as Hex
    const got = await forkCall('eth_call', [{ data }, 'latest'])
    expect(got).toBe((await remoteCall('eth_getBlockByNumber', [hex(n), false])).hash)
  })

  test('token cheats and a zeroed upstream slot (tombstone) survive sealing and snapshots', async () => {
    const token = remote.token.address
    const id = await forkCall('evm_snapshot')
    await forkCall('devnet_setTokenBalance', [recipients[0], '0x0'])
    await fork.seal()
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[0]) }, 'latest']))).toBe(0n)
    await forkCall('devnet_setTokenBlacklisted', [recipients[1], true])
    await forkCall('devnet_setTokenPaused', [true])
    const paused = await forkCall('eth_call', [{ to: token, data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'paused' }) }, 'latest'])
    expect(BigInt(paused)).toBe(1n)
    const blacklisted = await forkCall('eth_call', [
      { to: token, data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'isBlacklisted', args: [recipients[1]] }) },
      'latest',
    ])
    expect(BigInt(blacklisted)).toBe(1n)
    expect(await forkCall('evm_revert', [id])).toBe(true)
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: balanceOf(recipients[0]) }, 'latest']))).toBe(6_000_000n)
    expect(BigInt(await forkCall('eth_call', [{ to: token, data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'paused' }) }, 'latest']))).toBe(0n)
  })

  test('a transfer to a new recipient has its balance slot asked for at admission, once the function is learnt', async () => {
    const token = remote.token.address.toLowerCase()
    const slotOf = (who: Hex) => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [who, 9n]))
    const recorded = () => fork.node.fork!.cache.recorded().storage[token] ?? {}
    const fresh = ['0x3000000000000000000000000000000000000001', '0x3000000000000000000000000000000000000002'] as const
    // The first transfer runs: its cold read of balances[to] teaches (transfer, argument 0, slot 9).
    await send(fork, 0, { to: remote.token.address, data: transfer(fresh[0], 1n) })
    await fork.preconfirm()
    expect(recorded()[slotOf(fresh[0])]).toBeDefined()
    // The second is only admitted (manual mining, no tick): the slot is read from the upstream all the same.
    await send(fork, 0, { to: remote.token.address, data: transfer(fresh[1], 1n) })
    for (let i = 0; i < 300 && recorded()[slotOf(fresh[1])] === undefined; i++) await new Promise((r) => setTimeout(r, 10))
    expect(recorded()[slotOf(fresh[1])]).toBe(await remoteCall('eth_getStorageAt', [token, slotOf(fresh[1]), hex(pin)]))
    await fork.seal()
  })

  test('eth_simulateV1 runs on the fork', async () => {
    const token = remote.token.address
    const result = await forkCall('eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ from: account(0).address, to: token, data: transfer(recipients[0], 1n) }, { to: token, data: balanceOf(recipients[0]) }] }] },
      'latest',
    ])
    expect(result[0].calls[0].status).toBe('0x1')
    expect(BigInt(result[0].calls[1].returnData)).toBe(6_000_001n)
  })
})

describe('fork: cache and reset', () => {
  test('a restart with the same pin makes no remote call for what was read before (one batch: the caches check)', async () => {
    const reads = async (devnet: StartedDevnet) => {
      const call = (method: string, params: unknown[]) => devnet.request<LooseRpc>({ method, params })
      const out: unknown[] = []
      for (const who of recipients) {
        out.push(await call('eth_getBalance', [who, 'latest']))
        out.push(await call('eth_call', [{ to: remote.token.address, data: balanceOf(who) }, 'latest']))
      }
      out.push(await call('eth_getCode', [contract, 'latest']))
      out.push(await call('eth_getBlockByNumber', ['0x2', false]))
      out.push(await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(pin), address: remote.token.address }]))
      return out
    }
    const fresh = mkdtempSync(join(tmpdir(), 'devnet-fork-cold-'))
    const options = { mining: 'manual', clock: 'virtual', quiet: true, fork: { url: remote.url, blockNumber: Number(pin), cacheDir: fresh } } as const
    const cold = await startDevnet(options)
    const first = await reads(cold)
    const coldCalls = { ...cold.node.fork!.remote.stats }
    await cold.close()
    const warm = await startDevnet(options)
    const second = await reads(warm)
    const warmCalls = { ...warm.node.fork!.remote.stats }
    await warm.close()
    // Offline: the recorded cache alone answers the same reads; anything it lacks is a clear error.
    const offline = await startDevnet({ ...options, fork: { ...options.fork, offline: true } })
    const third = await reads(offline)
    const unknown = await offline.request({ method: 'eth_getBalance', params: ['0x00000000000000000000000000000000000000f1', 'latest'] }).catch((e: Error) => e)
    await offline.close()
    expect(third).toEqual(first)
    expect((unknown as Error).message).toContain('offline, and the fork cache has no answer for it')
    rmSync(fresh, { recursive: true, force: true })
    expect(second).toEqual(first)
    expect(coldCalls.http).toBeGreaterThan(0)
    // One batch, the caches' check: the chain id and the fork block's header (cacheLog.ts, cachedPinHash). Nothing else.
    expect(warmCalls).toEqual({ http: 1, requests: 2, retries: 0 })
    console.log(`fork remote calls: cold start + reads ${coldCalls.http} HTTP / ${coldCalls.requests} requests; warm restart 1 (the caches' check)`)
  })

  test('a cheat on the fresh fork block is undone by a revert; rollbacks stop at the fork block', async () => {
    await forkCall('anvil_reset', [])
    const id = await forkCall('evm_snapshot')
    await forkCall('anvil_setBalance', [recipients[0], '0x1'])
    expect(await forkCall('eth_getBalance', [recipients[0], 'latest'])).toBe('0x1')
    expect(await forkCall('evm_revert', [id])).toBe(true)
    expect(await forkCall('eth_getBalance', [recipients[0], 'latest'])).toBe(await remoteCall('eth_getBalance', [recipients[0], hex(pin)]))
    await fork.seal()
    await expect(forkCall('anvil_rollback', ['0x2'])).rejects.toThrow(`cannot remove block ${pin}: it is the first block of this chain (on a fork, the fork block)`)
    // A fixture of the fork records its pin (fixture.test.ts loads one offline).
    expect((await forkCall('devnet_dumpFixture', [])).fork).toMatchObject({ blockNumber: hex(pin), blockHash: fork.node.fork!.blockHash })
  })

  test('anvil_reset with forking re-pins the fork; without it goes back to the pin', async () => {
    await fork.seal()
    await forkCall('anvil_reset', [])
    expect(BigInt(await forkCall('eth_blockNumber'))).toBe(pin)
    await forkCall('anvil_reset', [{ forking: { jsonRpcUrl: remote.url, blockNumber: Number(pin - 100n) } }])
    expect(BigInt(await forkCall('eth_blockNumber'))).toBe(pin - 100n)
    expect(fork.node.fork!.blockNumber).toBe(pin - 100n)
    // At that pin only the first transfers had happened.
    expect(BigInt(await forkCall('eth_call', [{ to: remote.token.address, data: balanceOf(recipients[0]) }, 'latest']))).toBe(1_000_000n)
    await forkCall('hardhat_reset', [{ forking: { jsonRpcUrl: remote.url, blockNumber: Number(pin) } }])
    expect(BigInt(await forkCall('eth_blockNumber'))).toBe(pin)
  })

  test('WebSocket requests and subscriptions follow a re-fork', async () => {
    const ws = await connect(fork.wsUrl)
    try {
      const heads = await ws.call('eth_subscribe', ['newHeads'])
      const logs = await ws.call('eth_subscribe', ['logs', { address: remote.token.address }])
      // Re-forked over WebSocket: the connection's next requests reach the new node, and so does HTTP.
      await ws.call('anvil_reset', [{ forking: { jsonRpcUrl: remote.url, blockNumber: Number(pin - 50n) } }])
      expect(BigInt(await ws.call('eth_blockNumber'))).toBe(pin - 50n)
      expect(BigInt(await forkCall('eth_blockNumber'))).toBe(pin - 50n)
      await send(fork, 0, { to: remote.token.address, data: transfer(recipients[0], 1n) })
      await fork.seal()
      const arrived = (id: string) => ws.received(id)
      for (let i = 0; i < 300 && (arrived(heads).length === 0 || arrived(logs).length === 0); i++) await new Promise((r) => setTimeout(r, 10))
      expect((arrived(heads) as { number: Hex }[]).map((h) => BigInt(h.number))).toEqual([pin - 49n])
      expect((arrived(logs) as { blockNumber: Hex }[]).map((l) => BigInt(l.blockNumber))).toEqual([pin - 49n])
    } finally {
      ws.socket.close()
      await forkCall('anvil_reset', [{ forking: { jsonRpcUrl: remote.url, blockNumber: Number(pin) } }])
    }
  })
})

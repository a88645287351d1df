import { createAddressFromString } from '@ethereumjs/util'
import { runBlock } from '@ethereumjs/vm'
import { type Hex, bytesToHex, concatHex, parseGwei, sha256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createVmAt } from '../../src/evm/vm.js'
import type { StoredBlock } from '../../src/node/chain.js'
import { type NodeWithParts, nodeWithParts } from '../nodeWithParts.js'
import { stockEngine } from './installEngine.js'

const withdrawalQueue = '0x00000961ef480eb55e80d19ad83579a64c007002'
const consolidationQueue = '0x0000bbddc7ce488642fb579f8b00f3a590007251'
const systemAddress = '0xfffffffffffffffffffffffffffffffffffffffe'
const emptyRequestsHash = sha256(new Uint8Array(), 'hex')

/** Re-runs a sealed block with ethereumjs's own runBlock (every system call run for real); throws on any root or hash mismatch. */
async function replay(devnet: NodeWithParts, block: StoredBlock) {
  const { common, chain } = devnet.node
  const parent = chain.blockByNumber(block.number - 1n)!
  const vm = await createVmAt(common, devnet.parts.state, parent.stateRoot, chain)
  await runBlock(vm, { block: block.block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true })
}

/** Counts the system calls the sealing VM really runs. */
function countSystemCalls(devnet: NodeWithParts) {
  const evm = devnet.parts.preconf.vm().evm
  const spy = vi.spyOn(evm, 'runCall')
  return () => spy.mock.calls.filter(([opts]) => opts.caller?.toString() === systemAddress).length
}

describe.skipIf(stockEngine)('idle request queues at the end of a block', () => {
  // Created with its parts: the tests replay blocks on its state database and spy on the sealing VM.
  let devnet: NodeWithParts | undefined
  afterEach(async () => devnet?.close())

  it('seals the same blocks as running every system call, before, with and after queued requests', async () => {
    devnet = await nodeWithParts()
    const node = devnet.node
    const account = privateKeyToAccount(devnet.accounts[0]!.privateKey)
    const systemCalls = countSystemCalls(devnet)

    await devnet.seal()
    expect(systemCalls()).toBe(0)

    // One withdrawal request (48-byte pubkey, 8-byte amount) and one consolidation request (two pubkeys); the fee is 1 wei while excess is 0.
    const pubkey = `0x${'ab'.repeat(48)}` as Hex
    const sign = (nonce: number, to: Hex, data: Hex) =>
      account.signTransaction({ chainId: 31337, type: 'eip1559', to, data, value: 1n, nonce, gas: 500_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: 1n })
    for (const raw of [
      await sign(0, withdrawalQueue, concatHex([pubkey, '0x0000000000000001'])),
      await sign(1, consolidationQueue, concatHex([pubkey, `0x${'cd'.repeat(48)}`])),
    ])
      await devnet.request({ method: 'eth_sendRawTransaction', params: [raw] })
    const withRequests = (await node.seal()) as StoredBlock
    expect(withRequests.txs.map((tx) => tx.status)).toEqual([1, 1])
    // Both queues held a request at the end of the block: both calls ran and dequeued it.
    expect(systemCalls()).toBe(2)
    expect(bytesToHex(withRequests.block.header.requestsHash!)).not.toBe(emptyRequestsHash)

    // Drained and reset by that dequeue: idle again.
    const after = (await node.seal()) as StoredBlock
    expect(systemCalls()).toBe(2)
    expect(bytesToHex(after.block.header.requestsHash!)).toBe(emptyRequestsHash)

    for (let n = 1n; n <= node.chain.height(); n++) await replay(devnet, node.chain.blockByNumber(n)!)
  })

  it('runs the call when a cheat left a queue slot non-zero, and seals what ethereumjs seals', async () => {
    devnet = await nodeWithParts()
    const systemCalls = countSystemCalls(devnet)
    // count = 5 (slot 1): the dequeue call resets it and moves the excess (5 - target 2 = 3).
    await devnet.parts.cheat(async (state) => {
      await state.putStorage(createAddressFromString(withdrawalQueue), new Uint8Array(32).fill(1, 31), Uint8Array.of(5))
    })
    const sealed = (await devnet.node.seal()) as StoredBlock
    expect(systemCalls()).toBe(1)
    const excess = await devnet.request({ method: 'eth_getStorageAt', params: [withdrawalQueue, '0x0', 'latest'] })
    expect(BigInt(excess)).toBe(3n)
    await replay(devnet, sealed)
  })

  it('eth_simulateV1: a queue the request overrides is read from the request, not from the view it builds on', async () => {
    devnet = await nodeWithParts()
    // Empty calldata from anyone: the contract answers its fee, 1 wei at excess 0, ~e^(excess/17) above.
    const fee = { from: devnet.accounts[0]!.address, to: withdrawalQueue }
    const countSlot = `0x${'00'.repeat(31)}01`
    const simulate = (blockStateCalls: unknown[]) =>
      devnet!.request({ method: 'eth_simulateV1', params: [{ blockStateCalls }, 'latest'] }) as Promise<{ calls: { returnData: Hex }[] }[]>
    // The view's queues are idle (answered once per view root); the override leaves 100 counted: the end of the
    // first block dequeues, as ethereumjs's own system call, and the excess (100 - target 2) raises the fee.
    const idle = await simulate([{ calls: [fee] }, { calls: [fee] }])
    expect(idle.map((b) => BigInt(b.calls[0]!.returnData))).toEqual([1n, 1n])
    const overridden = await simulate([
      { stateOverrides: { [withdrawalQueue]: { stateDiff: { [countSlot]: `0x${'00'.repeat(31)}64` } } }, calls: [] },
      { calls: [fee] },
    ])
    expect(BigInt(overridden[1]!.calls[0]!.returnData)).toBeGreaterThan(100n)
    // Nothing of it stays in the view: the same idle answer again.
    expect((await simulate([{ calls: [fee] }]))[0]!.calls[0]!.returnData).toBe(idle[0]!.calls[0]!.returnData)
  })
})

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
})

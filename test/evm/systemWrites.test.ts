import { BlockBuilder, runBlock } from '@ethereumjs/vm'
import { type Hex, pad, toHex } from 'viem'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createVmAt } from '../../src/evm/vm.js'
import type { StoredBlock } from '../../src/node/chain.js'
import { type NodeWithParts, nodeWithParts } from '../nodeWithParts.js'
import { stockEngine } from './installEngine.js'

// src/evm/systemWrites.ts: the EIP-4788 and EIP-2935 writes at the start of a pre-confirmed or simulated block.
const beaconRoots = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
const history = '0x0000f90827f1c53a10cb7a02335b175320002935'

/** Re-runs a sealed block with ethereumjs's own runBlock (its own system writes); throws on any root mismatch. */
async function replay(devnet: NodeWithParts, block: StoredBlock) {
  const { common, chain } = devnet.node
  const parent = chain.blockByNumber(block.number - 1n)!
  const vm = await createVmAt(common, devnet.parts.state, parent.stateRoot, chain)
  await runBlock(vm, { block: block.block, skipBlockValidation: true, skipHeaderValidation: true, skipHardForkValidation: true })
}

describe.skipIf(stockEngine)('system writes at the start of a block', () => {
  let devnet: NodeWithParts | undefined
  afterEach(async () => {
    vi.restoreAllMocks()
    await devnet?.close()
  })

  it("writes what the library's initState writes, without running it: same state roots, same slots", async () => {
    devnet = await nodeWithParts()
    const initState = vi.spyOn(BlockBuilder.prototype, 'initState')
    const [from, to] = devnet.accounts.map((a) => a.address)
    for (let i = 0; i < 3; i++) {
      await devnet.request({ method: 'eth_sendTransaction', params: [{ from, to, value: '0x1' }] })
      await devnet.seal()
    }
    await devnet.seal()
    expect(initState).not.toHaveBeenCalled()
    const { chain } = devnet.node
    for (let n = 1n; n <= chain.height(); n++) await replay(devnet, chain.blockByNumber(n)!)

    // EIP-4788: the timestamp at timestamp % 8191, the (zero) beacon root 8191 slots further; EIP-2935: the parent hash.
    const head = chain.head()
    const index = head.block.header.timestamp % 8191n
    const slot = (address: string, key: bigint) => devnet!.request({ method: 'eth_getStorageAt', params: [address, toHex(key), 'latest'] })
    expect(BigInt(await slot(beaconRoots, index))).toBe(head.block.header.timestamp)
    expect(await slot(history, (head.number - 1n) % 8191n)).toBe(chain.blockByNumber(head.number - 1n)!.hash)
  })

  it('simulated blocks see the parent hash and timestamp written, as the library writes them', async () => {
    devnet = await nodeWithParts()
    await devnet.seal()
    const initState = vi.spyOn(BlockBuilder.prototype, 'initState')
    const head = devnet.node.chain.head()
    // EIP-2935's get: the 32-byte block number in, that block's hash out; EIP-4788's: the timestamp in, the root out
    // (a root given by override: the dev chain's own are zero, which writes nothing).
    const time = head.block.header.timestamp + 5n
    const beaconRoot = `0x${'11'.repeat(32)}` as Hex
    const calls = [
      { to: history, data: pad(toHex(head.number)) },
      { to: beaconRoots, data: pad(toHex(time)) },
    ]
    const [block] = (await devnet.request({
      method: 'eth_simulateV1',
      params: [{ blockStateCalls: [{ blockOverrides: { time: toHex(time), beaconRoot }, calls }] }, 'latest'],
    })) as { calls: { status: Hex; returnData: Hex }[] }[]
    expect(initState).not.toHaveBeenCalled()
    expect(block!.calls.map((c) => c.status)).toEqual(['0x1', '0x1'])
    expect(block!.calls[0]!.returnData).toBe(head.hash)
    expect(block!.calls[1]!.returnData).toBe(beaconRoot)
  })
})

import { afterEach, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

// Filters are part of a snapshot: after evm_revert a filter reports what it
// held when the snapshot was taken, and filters installed later are gone.
describe('filters across evm_snapshot / evm_revert', () => {
  let devnet: Devnet
  afterEach(() => devnet?.close())

  test('a block filter comes back as it was; a later filter is uninstalled', async () => {
    devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    const rpc = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })
    const blockFilter = await rpc('eth_newBlockFilter')
    const first = await devnet.seal()
    const snapshot = await rpc('evm_snapshot')
    await devnet.seal()
    const later = await rpc('eth_newBlockFilter')
    await devnet.seal()
    expect(await rpc('evm_revert', [snapshot])).toBe(true)
    // The filter still holds the one block it had not reported at snapshot time.
    expect(await rpc('eth_getFilterChanges', [blockFilter])).toEqual([first.hash])
    await expect(rpc('eth_getFilterChanges', [later])).rejects.toThrow(/filter not found/)
    const next = await devnet.seal()
    expect(await rpc('eth_getFilterChanges', [blockFilter])).toEqual([next.hash])
  })
})

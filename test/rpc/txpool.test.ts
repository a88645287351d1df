import { parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestDevnet } from '../utils.js'

let t: Awaited<ReturnType<typeof startTestDevnet>>
beforeAll(async () => {
  t = await startTestDevnet()
})
afterAll(async () => {
  await t.devnet.close()
})

/** Signs and sends a plain transfer from dev account `from` with an explicit nonce. */
async function send(from: number, nonce: number) {
  const signer = privateKeyToAccount(t.devnet.accounts[from]!.privateKey)
  const raw = await signer.signTransaction({
    chainId: t.devnet.chain.id, type: 'eip1559', to: t.devnet.accounts[9]!.address, value: parseEther('0.01'),
    nonce, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })
  return (await t.rpc('eth_sendRawTransaction', [raw])).result as `0x${string}`
}

describe('txpool_status / txpool_content', () => {
  test('a sender with a nonce gap shows queued; filling the gap makes both pending; pre-confirmed stays pending until sealed', async () => {
    const a = t.devnet.accounts[1]!.address.toLowerCase()
    const b = t.devnet.accounts[2]!.address.toLowerCase()
    // a: nonce 0 pre-confirmed, then 2 (gap at 1). b: nonce 0, in order.
    await send(1, 0)
    await t.rpc('devnet_preconfirm')
    await send(1, 2)
    await send(2, 0)
    // a's pre-confirmed nonce 0 is not sealed yet, so it is still pending (as in geth and Anvil, where the pending block's transactions stay in the pool).
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x2', queued: '0x1' })
    let content = (await t.rpc('txpool_content')).result
    expect(Object.keys(content.pending).sort()).toEqual([a, b].sort())
    expect(Object.keys(content.pending[a])).toEqual(['0'])
    expect(Object.keys(content.queued[a])).toEqual(['2'])
    expect((await t.rpc('txpool_contentFrom', [a])).result.queued['2'].nonce).toBe('0x2')

    // Nonce 1 closes the gap: it is next after the pre-confirmed nonce 0, so 1 and 2 are executable.
    await send(1, 1)
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x4', queued: '0x0' })
    content = (await t.rpc('txpool_content')).result
    expect(Object.keys(content.pending[a])).toEqual(['0', '1', '2'])

    await t.rpc('devnet_preconfirm')
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x4', queued: '0x0' })
    await t.rpc('devnet_seal')
    expect((await t.rpc('txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' })
  })

  test('txpool_contentFrom refuses a malformed address with -32602', async () => {
    expect((await t.rpc('txpool_contentFrom', ['0x1234'])).error?.code).toBe(-32602)
  })
})

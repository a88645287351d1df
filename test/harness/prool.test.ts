import { describe, expect, test } from 'vitest'
import { devnetInstance } from '../../src/testing/prool.js'

describe('devnetInstance (prool Instance shape)', () => {
  test('starts, serves, stops and restarts like a prool instance; instances are independent', async () => {
    const first = devnetInstance({ mining: 'manual', clock: 'virtual', quiet: true })
    const second = first.create()
    expect([first.name, first.host, first.status]).toEqual(['devnet', '127.0.0.1', 'idle'])
    const listening: string[] = []
    first.on('listening', () => listening.push('first'))

    const [stop] = await Promise.all([first.start(), second.start()])
    expect(first.status).toBe('started')
    expect(listening).toEqual(['first'])
    expect(first.port).toBeGreaterThan(0)
    expect(first.port).not.toBe(second.port)
    expect(first.messages.get()).toEqual([`devnet listening on http://127.0.0.1:${first.port}`])
    await expect(first.start()).rejects.toThrow(/not in an idle or stopped state/)

    const call = async (port: number, method: string, params: unknown[] = []) => {
      const response = await fetch(`http://127.0.0.1:${port}`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      return ((await response.json()) as { result: unknown }).result
    }
    await call(first.port, 'anvil_mine', ['0x2'])
    expect(await call(first.port, 'eth_blockNumber')).toBe('0x2')
    expect(await call(second.port, 'eth_blockNumber')).toBe('0x0')

    const exits: unknown[] = []
    first.on('exit', (code) => exits.push(code))
    stop()
    await first.stop().catch(() => undefined)
    await new Promise<void>((resolve) => (first.status === 'stopped' ? resolve() : first.once('exit', () => resolve())))
    expect(first.status).toBe('stopped')
    expect(exits).toEqual([0])
    await expect(first.stop()).rejects.toThrow(/has not started/)
    // A stopped instance starts again, on a fresh devnet.
    await first.start()
    expect(await call(first.port, 'eth_blockNumber')).toBe('0x0')
    await Promise.all([first.stop(), second.stop()])
  })
})

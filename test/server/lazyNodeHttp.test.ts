import { describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { resolveConfig, serveListening } from '../../src/index.js'
import { listenFirst } from '../../src/server/listenFirst.js'

// node:http's server behind the fast path is made when first needed (src/server/http.ts listen): WebSocket upgrades,
// held while the node is built or arriving after it, must reach the node all the same.

/** Opens a WebSocket to `url` and resolves with its answer to one eth_chainId. */
function chainIdOverWs(url: string) {
  return new Promise<unknown>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('error', reject)
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })))
    ws.on('message', (data) => {
      resolve(JSON.parse(String(data)))
      ws.close()
    })
  })
}

const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' }).then((r) => r.json())

describe('lazy node:http', () => {
  test('behavior: a WebSocket opened before the node is built is held, then served', async () => {
    const config = await resolveConfig({ mining: 'manual', clock: 'virtual', quiet: true, port: 0 })
    const listening = await listenFirst(config)
    const url = listening.server.url.replace(/^http/, 'ws')
    // Its upgrade is held: nothing answers it until the node is served.
    const answer = chainIdOverWs(url)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const devnet = await serveListening(listening)
    try {
      expect(await answer).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    } finally {
      await devnet.close()
    }
  })

  test('behavior: a WebSocket after JSON-RPC POSTs only (node:http not made yet) is served', async () => {
    const config = await resolveConfig({ mining: 'manual', clock: 'virtual', quiet: true, port: 0 })
    const devnet = await serveListening(await listenFirst(config))
    try {
      expect(await post(devnet.url)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
      expect(await chainIdOverWs(devnet.wsUrl)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
      // And a plain GET (node:http's, the live page) after it.
      expect((await fetch(`${devnet.url}/`)).status).toBe(200)
    } finally {
      await devnet.close()
    }
  })
})

/**
 * The live page's server side, without a browser: the routes, `ui: false`,
 * devnet_checkAuthorization, and that a devnet with the page on but no page
 * open listens to nothing per tick.
 */
import { type Hex, createClient, custom } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { createAuthorization, readTokenDomain, signAuthorization } from '../../src/payments/index.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import { merchantAccount, payerAccount } from '../payments/utils.js'

let devnet: StartedDevnet
beforeAll(async () => {
  devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
})
afterAll(async () => {
  await devnet?.close()
})

const html = { accept: 'text/html,application/xhtml+xml' }

describe('GET /', () => {
  test('default: a browser gets the page, its script and style, with a same-origin CSP', async () => {
    const page = await fetch(devnet.url, { headers: html })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'")
    expect(await page.text()).toContain('<script src="/ui/app.js" defer></script>')
    const script = await fetch(`${devnet.url}/ui/app.js`)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await script.text()).toContain('newFlashblocks')
    const style = await fetch(`${devnet.url}/ui/style.css`)
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect((await fetch(`${devnet.url}/ui/other.js`)).status).toBe(404)
  })

  test('behavior: JSON-RPC is unchanged: POST / answers, a GET / without text/html gets the JSON line', async () => {
    expect(await fetch(devnet.url).then((r) => r.json())).toEqual({ name: 'devnet', jsonrpc: 'POST / with a JSON-RPC 2.0 body' })
    expect(await devnet.request({ method: 'eth_blockNumber' })).toBe('0x0')
  })

  test('args: ui false serves no page', async () => {
    const plain = await startDevnet({ mining: 'manual', quiet: true, ui: false })
    try {
      expect(await fetch(plain.url, { headers: html }).then((r) => r.json())).toEqual({
        name: 'devnet',
        jsonrpc: 'POST / with a JSON-RPC 2.0 body',
      })
      expect((await fetch(`${plain.url}/ui/app.js`)).status).toBe(404)
    } finally {
      await plain.close()
    }
  })
})

describe('no page open', () => {
  test('behavior: nothing listens to the node per tick until a page subscribes, and nothing after it leaves', async () => {
    const { events } = devnet.node
    const listening = () => (['preconf', 'newHead', 'removedBlocks', 'pendingTx', 'droppedPreconf'] as const).map((e) => events.listenerCount(e))
    const before = listening()
    await fetch(devnet.url, { headers: html }).then((r) => r.text())
    await fetch(`${devnet.url}/ui/app.js`).then((r) => r.text())
    expect(listening()).toEqual(before)
    // What the page subscribes to, over the same WebSocket.
    const ws = new WebSocket(devnet.wsUrl)
    await new Promise((resolve) => ws.once('open', resolve))
    const subscribe = (id: number, params: unknown[]) =>
      new Promise<void>((resolve) => {
        ws.on('message', (data) => {
          if (JSON.parse(String(data)).id === id) resolve()
        })
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }))
      })
    await subscribe(1, ['newHeads'])
    await subscribe(2, ['newFlashblocks'])
    await subscribe(3, ['logs'])
    expect(events.listenerCount('preconf')).toBe(before[0]! + 1)
    expect(events.listenerCount('newHead')).toBe(before[1]! + 2)
    const closed = new Promise((resolve) => ws.once('close', resolve))
    ws.close()
    await closed
    await expect.poll(listening).toEqual(before)
  })
})

describe('devnet_checkAuthorization', () => {
  const client = () => createClient({ transport: custom(devnet) })
  const signed = async (primaryType?: 'TransferWithAuthorization') => {
    const domain = await readTokenDomain(client(), devnet.token.address)
    const { timestamp } = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as { timestamp: Hex }
    const authorization = createAuthorization({
      domain,
      from: payerAccount.address,
      to: merchantAccount.address,
      amount: '3',
      now: Number(BigInt(timestamp)) * 1000,
      primaryType,
    })
    const signature = await signAuthorization({ authorization, signer: payerAccount })
    const { domain: _, primaryType: __, ...fields } = authorization
    const wire = { ...fields, value: fields.value.toString(), validAfter: fields.validAfter.toString(), validBefore: fields.validBefore.toString() }
    return { authorization, signature, wire }
  }

  test('default: a payments record without its domain is checked against this token', async () => {
    const { wire, signature } = await signed()
    const result = await devnet.request({ method: 'devnet_checkAuthorization', params: [{ authorization: wire, signature }] })
    expect(result.ok).toBe(true)
    expect(result.method).toBe('receiveWithAuthorization')
    expect(result.authorization.domain).toEqual({ name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: devnet.token.address })
    expect(result.submitter).toBe(merchantAccount.address.toLowerCase())
  })

  test('args: an x402 payload is a TransferWithAuthorization; a submitter other than the payee is named', async () => {
    const { wire, signature } = await signed('TransferWithAuthorization')
    const payload = { x402Version: 1, scheme: 'exact', network: 'devnet', payload: { signature, authorization: wire } }
    const ok = await devnet.request({ method: 'devnet_checkAuthorization', params: [payload, devnet.accounts[5]!.address] })
    expect([ok.ok, ok.method]).toEqual([true, 'transferWithAuthorization'])
    const receive = await signed()
    const wrong = await devnet.request({
      method: 'devnet_checkAuthorization',
      params: [{ authorization: receive.wire, signature: receive.signature }, devnet.accounts[5]!.address],
    })
    expect(wrong.ok).toBe(false)
    expect(wrong.failures.map((f: { reason: string }) => f.reason)).toEqual(['caller-not-payee'])
  })

  test('behavior: a signature over other fields fails as invalid-signature', async () => {
    const { wire, signature } = await signed()
    const result = await devnet.request({
      method: 'devnet_checkAuthorization',
      params: [{ authorization: { ...wire, value: '4000000' }, signature }],
    })
    expect(result.failures.map((f: { reason: string }) => f.reason)).toEqual(['invalid-signature'])
  })

  test('error: malformed input is -32602 naming the field', async () => {
    const bad = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'devnet_checkAuthorization', params: [{ authorization: { from: '0x12' }, signature: '0x' }] }),
    }).then((r) => r.json() as Promise<any>)
    expect(bad.error.code).toBe(-32602)
    expect(bad.error.message).toMatch(/^invalid argument 0: from: /)
    const missing = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'devnet_checkAuthorization', params: [] }),
    }).then((r) => r.json() as Promise<any>)
    expect(missing.error).toEqual({ code: -32602, message: 'missing value for required argument 0' })
  })
})

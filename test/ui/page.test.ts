/**
 * The live page (src/ui) in a real headless Chromium: @sparticuz/chromium's
 * build, which ships inside the npm package and runs with no download,
 * driven by playwright-core. The devnet runs in-process with manual mining,
 * so the test drives every tick and seal (devnet_preconfirm, devnet_seal) and
 * the page must follow: nothing here sleeps, each wait is for an element the
 * page draws when the node's notification arrives.
 *
 * `DEVNET_UI_SCREENSHOT=docs/ui.png npx vitest run test/ui/page.test.ts`
 * refreshes the README's screenshot; otherwise it goes to the temp folder.
 */
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import chromium from '@sparticuz/chromium'
import { type Browser, type Page, chromium as playwright } from 'playwright-core'
import { type Hex, encodeFunctionData, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  cancelAuthorization,
  capture,
  createAuthorization,
  createMemoryStore,
  readTokenDomain,
  signAuthorization,
} from '../../src/payments/index.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import { createClients, merchantAccount, payerAccount } from '../payments/utils.js'

/**
 * Chromium talks to 127.0.0.1 only: no component updates, no metrics, no
 * sync, no field trials, and every host name but the loopback resolves
 * nowhere. The page must work offline; a request elsewhere fails the test.
 */
const offline = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--disable-field-trial-config',
  '--metrics-recording-only',
  '--no-first-run',
  '--no-service-autorun',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]

/** Starts the browser, or fails naming why: a missing shared library shows up here, and must not pass as a skip. */
async function launch(): Promise<Browser> {
  let executablePath: string
  try {
    executablePath = await chromium.executablePath()
  } catch (error) {
    throw new Error(`@sparticuz/chromium could not unpack its Chromium: ${(error as Error).message}`)
  }
  try {
    return await playwright.launch({ executablePath, args: [...chromium.args, ...offline], timeout: 30_000 })
  } catch (error) {
    throw new Error(
      `headless Chromium (${executablePath}) did not start, so the live page cannot be tested. ` +
        `On Linux this is usually a missing shared library (try \`ldd ${executablePath} | grep "not found"\`). ` +
        `Cause: ${(error as Error).message.split('\n').slice(0, 6).join(' | ')}`,
    )
  }
}

const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)'])

let devnet: StartedDevnet
let browser: Browser
let page: Page
const elsewhere: string[] = []
const pageErrors: string[] = []

/** A dev account sends (the devnet signs: eth_sendTransaction); nothing is pre-confirmed until a tick. */
const send = (tx: { from: Hex; to: Hex; value?: Hex; data?: Hex; gas?: Hex }) =>
  devnet.request({ method: 'eth_sendTransaction', params: [tx] }) as Promise<Hex>

/** Waits until the page shows `text` in an element matching `selector`. */
const shows = (selector: string, text?: string | RegExp) =>
  (text === undefined ? page.locator(selector) : page.locator(selector).filter({ hasText: text })).first().waitFor({ timeout: 10_000 })

beforeAll(async () => {
  devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  browser = await launch()
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } })
  const origin = new URL(devnet.url).origin
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (new URL(url).origin === origin) return route.continue()
    elsewhere.push(url)
    return route.abort()
  })
  page = await context.newPage()
  page.on('pageerror', (error) => pageErrors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text())
  })
  await page.goto(devnet.url)
  await shows('body[data-ready]')
})

afterAll(async () => {
  await browser?.close()
  await devnet?.close()
})

describe('live page', () => {
  test('default: served on GET / to a browser, JSON-RPC unchanged, nothing loaded from elsewhere', async () => {
    expect(await page.title()).toBe('devnet')
    await shows('#connection', 'live')
    expect(await page.locator('#accounts tr').count()).toBe(10)
    await shows('#accounts tr', /1,000,000/)
    const info = await fetch(devnet.url).then((r) => r.json())
    expect(info).toEqual({ name: 'devnet', jsonrpc: 'POST / with a JSON-RPC 2.0 body' })
    expect(await devnet.request({ method: 'eth_chainId' })).toBe('0x7a69')
  })

  test('behavior: a transaction is in the timeline within a tick; a revert shows its reason', async () => {
    const [a, b] = [devnet.accounts[0]!, devnet.accounts[1]!]
    const transfer = await send({ from: a.address, to: b.address, value: '0xde0b6b3a7640000' })
    const tooMuch = await send({
      from: a.address,
      to: devnet.token.address,
      gas: '0x30000',
      data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [b.address, 10n ** 30n] }),
    })
    // Not yet pre-confirmed: the pending block is empty.
    expect(await page.locator(`[data-chip="${transfer}"]`).count()).toBe(0)
    await devnet.preconfirm()
    await shows(`[data-testid=pending] [data-flashblock="1"] [data-chip="${transfer}"]`)
    await shows(`[data-testid=pending] [data-chip="${tooMuch}"].reverted`)
    await shows(`tr[data-tx="${transfer}"]`, 'pending #1 · fb 1')
    await shows(`tr[data-tx="${tooMuch}"] td.result`, 'reverted: ERC20: transfer amount exceeds balance')
    // The pending balances move before latest does.
    await shows(`tr[data-account="${b.address.toLowerCase()}"] td.moved`, '10,001')
  })

  test('controls: Pre-confirm and Seal buttons tick and seal the block', async () => {
    const [a, b] = [devnet.accounts[0]!, devnet.accounts[1]!]
    const second = await send({ from: b.address, to: a.address, value: '0x1' })
    await page.click('#preconfirm')
    await shows(`[data-testid=pending] [data-flashblock="2"] [data-chip="${second}"]`)
    await page.click('#seal')
    await shows('.block.sealed[data-block="1"] [data-flashblock="2"] [data-chip]')
    await shows(`tr[data-tx="${second}"]`, 'block #1 · fb 2')
    await shows('[data-testid=pending][data-number="2"]')
    expect(await devnet.request({ method: 'eth_blockNumber' })).toBe('0x1')
  })

  test('behavior: a capture and a cancel appear as authorizations, and the paste box checks them', async () => {
    const clients = createClients(devnet)
    const store = createMemoryStore()
    const domain = await readTokenDomain(clients.client, devnet.token.address)
    const { timestamp } = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as { timestamp: Hex }
    const now = Number(BigInt(timestamp)) * 1000
    for (const orderId of ['A-1', 'A-2']) {
      const authorization = createAuthorization({ domain, from: payerAccount.address, to: merchantAccount.address, amount: '12.50', now })
      const signature = await signAuthorization({ authorization, signer: payerAccount })
      await store.insert({ orderId, authorization, signature })
    }
    const first = (await store.get('A-1'))!
    const second = (await store.get('A-2'))!
    const pasted = (record: typeof first) =>
      JSON.stringify({ authorization: record.authorization, signature: record.signature }, (_, v) => (typeof v === 'bigint' ? v.toString() : v))

    // Before capture the paste box says it would go through.
    await page.fill('#auth-input', pasted(first))
    await page.click('#check')
    await shows('#check-result [data-ok="true"]', 'would capture now with receiveWithAuthorization')

    const captured = await capture({ wallet: clients.merchant, client: clients.client, store, orderId: 'A-1' })
    expect(captured.state).toBe('preconfirmed')
    const canceled = await cancelAuthorization({ wallet: clients.merchant, client: clients.client, store, orderId: 'A-2', signer: payerAccount })
    await shows(`tr[data-auth="${first.authorization.nonce}"]`, /used \(captured\).*pending #2/)
    await shows(`tr[data-auth="${second.authorization.nonce}"]`, /canceled.*pending #2/)
    await shows(`tr[data-tx="${canceled.transactionHash}"]`, 'AuthorizationCanceled #1')

    // Canceled: the check now names the reason, in the payments library's words.
    await page.fill('#auth-input', pasted(second))
    await page.click('#check')
    await shows('#check-result [data-ok="false"]')
    await shows('#check-result [data-reason="used-or-canceled"]', 'already used or canceled')

    await devnet.seal()
    await shows(`tr[data-auth="${first.authorization.nonce}"]`, 'block #2')
    await shows('#events li[data-event="AuthorizationUsed"]', 'AuthorizationUsed #1')
    await shows('#events li[data-event="Transfer"]', 'Transfer 12.5 USDC #1 → #2')
    await shows('#events li[data-event="AuthorizationCanceled"]')
  })

  test('behavior: Sign a sample fills the box with an authorization that would capture', async () => {
    // The box still holds the test before's canceled authorization of 12.5 tokens: the check must see the sample (1 token), not that.
    expect(await page.inputValue('#auth-input')).toContain('"value":"12500000"')
    await page.click('#sample')
    expect(await page.inputValue('#auth-input')).not.toContain('12500000')
    await expect.poll(() => page.inputValue('#auth-input'), { timeout: 10_000 }).toContain('"value": "1000000"')
    await page.click('#check')
    await shows('#check-result [data-ok="true"]', 'would capture now with receiveWithAuthorization')
  })

  test('controls: Snapshot, then Revert takes the chain back', async () => {
    await page.click('#snapshot')
    await page.locator('#snapshots option').first().waitFor({ state: 'attached', timeout: 10_000 })
    const [a, b] = [devnet.accounts[0]!, devnet.accounts[1]!]
    const hash = await send({ from: b.address, to: a.address, value: '0x2' })
    await devnet.seal()
    const head = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { hash: Hex; number: Hex }
    await shows(`.block.sealed[data-hash="${head.hash}"] [data-chip="${hash}"]`)
    await page.click('#revert')
    await shows(`.block.removed[data-hash="${head.hash}"]`, 'reorged out')
    await shows('#control-result', 'revert: true')
    expect(await devnet.request({ method: 'eth_blockNumber' })).toBe(`0x${(BigInt(head.number) - 1n).toString(16)}`)
    expect(await page.locator('#snapshots option').count()).toBe(0)
  })

  test('controls: Reorg removes the top block; its logs come back removed, its transactions return to the pool', async () => {
    const sealed = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { hash: Hex; transactions: Hex[] }
    await page.fill('#reorg-depth', '1')
    await page.click('#reorg')
    await shows(`.block.removed[data-hash="${sealed.hash}"]`, 'reorged out')
    await shows('#events li.removed[data-event="AuthorizationUsed"]', 'removed')
    for (const hash of sealed.transactions) await shows(`tr.removed[data-tx="${hash}"]`, 'removed by a reorg')
    // The next tick pre-confirms them again on the new head.
    await devnet.preconfirm()
    for (const hash of sealed.transactions) {
      await shows(`tr[data-tx="${hash}"]:not(.removed) td.where`, 'pending #3')
      await shows(`tr[data-tx="${hash}"] td.result.ok`)
    }
    await shows('#auths tr:not(.removed)', /used \(captured\).*pending #3/)

    const file = process.env.DEVNET_UI_SCREENSHOT ?? join(tmpdir(), 'devnet-ui.png')
    mkdirSync(dirname(file), { recursive: true })
    await page.screenshot({ path: file, fullPage: true, animations: 'disabled' })
    expect(pageErrors).toEqual([])
    expect(elsewhere).toEqual([])
  })

  test('controls: Mine N seals N blocks; + time moves the clock of the pending block', async () => {
    const height = BigInt(await devnet.request({ method: 'eth_blockNumber' }))
    await page.fill('#mine-n', '2')
    await page.click('#mine')
    await shows(`.block.sealed[data-block="${height + 2n}"]`)
    await shows('[data-testid=pending]', `#${height + 3n} pending`)
    const latest = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { timestamp: Hex }
    await page.fill('#time-s', '3600')
    await page.click('#increase-time')
    await shows('#control-result', 'increase-time: 3600')
    const after = (await devnet.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as { timestamp: Hex }
    // The pending block is re-timed an hour past the head.
    expect(BigInt(after.timestamp) - BigInt(latest.timestamp)).toBe(3600n)
    expect(pageErrors).toEqual([])
  })
})

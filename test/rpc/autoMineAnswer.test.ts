import { parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import { type Dispatcher, createDispatcher } from '../../src/rpc/dispatch.js'
import { allMethods } from '../../src/rpc/registry.js'

// Auto mining answers a send at admission (as Anvil and geth --dev) and seals right after; every request that
// arrives after the answer waits for that seal (Node.settled), through each way in: the text path with its answer
// memo (HTTP), the parsed path (WebSocket, batches) and `request` (EIP-1193).
let devnet: Devnet
let dispatcher: Dispatcher
let nonce = 0
let recipientIndex = 0
const signer = () => privateKeyToAccount(devnet.accounts[0]!.privateKey)
const nextRecipient = () => `0x${(0xa000 + ++recipientIndex).toString(16).padStart(40, '0')}` as const
const signTransfer = (to: `0x${string}`, txNonce = nonce++) =>
  signer().signTransaction({
    chainId: devnet.chain.id, type: 'eip1559', to, value: parseEther('1'),
    nonce: txNonce, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })

let nextId = 0
const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params })
const viaText = async (method: string, params: unknown[]) => JSON.parse((await dispatcher.respondText(body(method, params)))!)
const viaParsed = async (method: string, params: unknown[]) => dispatcher.respond(JSON.parse(body(method, params))).then((t) => JSON.parse(t!))

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
  dispatcher = createDispatcher(devnet.node, allMethods, { debug: false })
})
afterAll(async () => {
  await devnet.close()
})

describe('auto mining: the send is answered at admission', () => {
  test('behavior: answered before the seal; a memoized read that follows waits for it and sees the transfer', async () => {
    const to = nextRecipient()
    // Twice: the second answer comes from the memo, which the next read would hit without the wait.
    for (let i = 0; i < 2; i++) expect((await viaText('eth_getBalance', [to, 'latest'])).result).toBe('0x0')
    const height = devnet.node.chain.height()
    const sent = await viaText('eth_sendRawTransaction', [await signTransfer(to)])
    expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/)
    // The answer left before the block: the seal waits for the next turn of the event loop.
    expect(devnet.node.chain.height()).toBe(height)
    expect(devnet.node.settled()).toBeDefined()
    const balance = dispatcher.respondText(body('eth_getBalance', [to, 'latest']))
    expect(typeof balance).not.toBe('string')
    expect(JSON.parse((await balance)!).result).toBe('0xde0b6b3a7640000')
    expect(devnet.node.chain.height()).toBe(height + 1n)
    expect(devnet.node.settled()).toBeUndefined()
  })

  test('behavior: receipt, nonce, block number and logs right after the answer, on the parsed path', async () => {
    const to = nextRecipient()
    const height = devnet.node.chain.height()
    const sent = await viaParsed('eth_sendRawTransaction', [await signTransfer(to)])
    expect(devnet.node.chain.height()).toBe(height)
    const receipt = (await viaParsed('eth_getTransactionReceipt', [sent.result])).result
    expect(receipt).toMatchObject({ status: '0x1', blockNumber: `0x${(height + 1n).toString(16)}`, transactionHash: sent.result })
    expect((await viaParsed('eth_blockNumber', [])).result).toBe(`0x${(height + 1n).toString(16)}`)
    expect((await viaParsed('eth_getTransactionCount', [devnet.accounts[0]!.address, 'latest'])).result).toBe(`0x${nonce.toString(16)}`)
    expect((await viaParsed('eth_getBalance', [to, 'latest'])).result).toBe('0xde0b6b3a7640000')
  })

  test('behavior: eth_sendTransaction (the node signs) through request: a read that follows sees it mined', async () => {
    const to = nextRecipient()
    const height = devnet.node.chain.height()
    const hash = await devnet.request({ method: 'eth_sendTransaction', params: [{ from: devnet.accounts[2]!.address, to, value: '0x1' }] })
    expect(devnet.node.chain.height()).toBe(height)
    const receipt = await devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] })
    expect(receipt?.status).toBe('0x1')
    expect(await devnet.request({ method: 'eth_getBalance', params: [to, 'latest'] })).toBe('0x1')
  })

  test('behavior: sends in a row are each answered before their block, and each block holds one', async () => {
    const height = devnet.node.chain.height()
    const hashes: string[] = []
    for (let i = 0; i < 3; i++) hashes.push((await viaText('eth_sendRawTransaction', [await signTransfer(nextRecipient())])).result)
    for (const [i, hash] of hashes.entries())
      expect((await viaText('eth_getTransactionReceipt', [hash])).result.blockNumber).toBe(`0x${(height + 1n + BigInt(i)).toString(16)}`)
  })

  test('error: admission errors still come back on the send (nonce too low, insufficient funds)', async () => {
    const low = await viaText('eth_sendRawTransaction', [await signTransfer(nextRecipient(), 0)])
    expect(low.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^nonce too low/) })
    const poor = privateKeyToAccount(`0x${'11'.repeat(32)}`)
    const raw = await poor.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to: nextRecipient(), value: 1n,
      nonce: 0, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
    })
    const funds = await viaText('eth_sendRawTransaction', [raw])
    expect(funds.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^insufficient funds/) })
    expect(devnet.node.settled()).toBeUndefined()
  })
})

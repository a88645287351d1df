import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeFunctionData, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { type Devnet, startDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

// Auto mining answers eth_sendRawTransaction as soon as its block is on the chain and restarts the pending block on
// it afterwards (src/node/node.ts, sealAnswerFirst): every request that comes after the answer must still see the
// sealed block as head and the pending block on top of it.
let devnet: Devnet & { url: string }
let nonce = 0
const signTransfer = () =>
  privateKeyToAccount(devnet.accounts[0]!.privateKey).signTransaction({
    chainId: devnet.chain.id, type: 'eip1559', to: devnet.accounts[1]!.address, value: parseEther('1'),
    nonce: nonce++, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })

type Block = { hash: string; number: string; parentHash: string; transactions: string[] }

/** Writes the requests to one connection in one write (pipelined) and returns the bodies of their answers, in order. */
function pipelined(url: string, bodies: object[]): Promise<any[]> {
  const { hostname, port } = new URL(url)
  const text = bodies
    .map((body) => {
      const json = JSON.stringify(body)
      return `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`
    })
    .join('')
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text))
    let received = ''
    socket.setEncoding('utf8')
    socket.on('error', reject)
    socket.on('data', (chunk: string) => {
      received += chunk
      const answers: any[] = []
      let rest = received
      while (true) {
        const end = rest.indexOf('\r\n\r\n')
        if (end < 0) break
        const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, end))?.[1])
        if (rest.length < end + 4 + length) break
        answers.push(JSON.parse(rest.slice(end + 4, end + 4 + length)))
        rest = rest.slice(end + 4 + length)
      }
      if (answers.length === bodies.length) {
        socket.destroy()
        resolve(answers)
      }
    })
  })
}

beforeAll(async () => {
  devnet = (await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true, port: 0 })) as Devnet & { url: string }
})
afterAll(async () => {
  await devnet.close()
})

/** The pipelined check: a send, then reads of the receipt, `latest`, `pending` and devnet_status behind it. */
async function sendThenRead(url: string, raw: string) {
  const [sent, receipt, latest, pending, status] = await pipelined(url, [
    { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] },
    { jsonrpc: '2.0', id: 2, method: 'eth_getTransactionReceipt', params: [`0x${'00'.repeat(32)}`] },
    { jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: ['latest', false] },
    { jsonrpc: '2.0', id: 4, method: 'eth_getBlockByNumber', params: ['pending', false] },
    { jsonrpc: '2.0', id: 5, method: 'devnet_status', params: [] },
  ])
  expect(sent.error).toBeUndefined()
  expect(receipt.result).toBeNull()
  const head = latest.result as Block
  expect(head.transactions).toEqual([sent.result])
  expect((pending.result as Block).parentHash).toBe(head.hash)
  expect(BigInt((pending.result as Block).number)).toBe(BigInt(head.number) + 1n)
  expect(status.result.pending.parentHash).toBe(head.hash)
}

describe('eth_sendRawTransaction under auto mining', () => {
  test('behavior: a request pipelined behind the send sees its block as head and the pending block on it', async () => {
    for (let i = 0; i < 3; i++) await sendThenRead(devnet.url, await signTransfer())
  })

  test('behavior: on a fork (upstream reads during the seal), a pipelined request sees the sealed block', async () => {
    const upstream = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, port: 0 })
    const cacheDir = mkdtempSync(join(tmpdir(), 'answer-first-'))
    const fork = await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true, port: 0, fork: { url: upstream.url, cacheDir } })
    try {
      const account = privateKeyToAccount(fork.accounts[0]!.privateKey)
      for (let i = 0; i < 3; i++) {
        // A token transfer to a new holder: its balance slot is read from the upstream while the block runs.
        const raw = await account.signTransaction({
          chainId: fork.chain.id, type: 'eip1559', to: fork.token.address, nonce: i, gas: 100_000n,
          maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
          data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [`0x${(0xa0 + i).toString(16).padStart(40, '0')}`, 1n] }),
        })
        await sendThenRead(fork.url, raw)
      }
    } finally {
      await fork.close()
      await upstream.close()
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('behavior: the next request on another connection sees the same', async () => {
    const [sent] = await pipelined(devnet.url, [{ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [await signTransfer()] }])
    const hash = sent.result as string
    const [receipt, latest, pending] = await pipelined(devnet.url, [
      { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [hash] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] },
      { jsonrpc: '2.0', id: 3, method: 'eth_getBlockByNumber', params: ['pending', false] },
    ])
    expect(receipt.result.transactionHash).toBe(hash)
    expect(latest.result.hash).toBe(receipt.result.blockHash)
    expect(pending.result.parentHash).toBe(receipt.result.blockHash)
  })

  test('behavior: in process, the request after the answer sees the pending block on the new head', async () => {
    const hash = await devnet.request<LooseRpc>({ method: 'eth_sendRawTransaction', params: [await signTransfer()] })
    const pending = await devnet.request<LooseRpc>({ method: 'eth_getBlockByNumber', params: ['pending', false] })
    const head = devnet.node.chain.head()
    expect(head.txs.map((tx) => tx.hash)).toEqual([hash])
    expect(pending.parentHash).toBe(head.hash)
  })

  test('behavior: in process, the node read directly after the answer has the pending block on the new head', async () => {
    const hash = await devnet.request<LooseRpc>({ method: 'eth_sendRawTransaction', params: [await signTransfer()] })
    expect(devnet.node.chain.head().txs.map((tx) => tx.hash)).toEqual([hash])
    expect(devnet.node.pending().parentHash).toBe(devnet.node.chain.head().hash)
    expect(devnet.node.settling()).toBeUndefined()
    const [answer] = (await devnet.requestRaw([{ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [await signTransfer()] }])) as { result: string }[]
    expect(devnet.node.chain.head().txs.map((tx) => tx.hash)).toEqual([answer!.result])
    expect(devnet.node.pending().parentHash).toBe(devnet.node.chain.head().hash)
  })

  test('behavior: node.submit resolves with the pending block already restarted on the new head', async () => {
    const hash = await devnet.node.submit(devnet.node.decodeRaw(Buffer.from((await signTransfer()).slice(2), 'hex')))
    expect(devnet.node.chain.head().txs.map((tx) => tx.hash)).toEqual([hash])
    expect(devnet.node.pending().parentHash).toBe(devnet.node.chain.head().hash)
    expect(devnet.node.settling()).toBeUndefined()
  })
})

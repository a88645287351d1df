import { createWalletClient, custom, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { sendRawTransactionSync } from 'viem/actions'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

// eth_sendRawTransactionSync (EIP-7966): the timeout arrives as a JSON number
// from viem, Base's examples and the EIP, and as a hex quantity from others.
let devnet: Devnet
let nonce = 0
const signer = () => privateKeyToAccount(devnet.accounts[0]!.privateKey)
const signTransfer = () =>
  signer().signTransaction({
    chainId: devnet.chain.id, type: 'eip1559', to: devnet.accounts[1]!.address, value: parseEther('1'),
    nonce: nonce++, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
})
afterAll(async () => {
  await devnet.close()
})

describe('eth_sendRawTransactionSync timeout', () => {
  test('viem sends the timeout as a number: answered with the receipt', async () => {
    const client = createWalletClient({ chain: devnet.chain, transport: custom(devnet) })
    const receipt = await sendRawTransactionSync(client, { serializedTransaction: await signTransfer(), timeout: 2000 })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(devnet.accounts[0]!.address.toLowerCase())
  })

  test('a hex quantity timeout still works', async () => {
    const receipt = await devnet.request<LooseRpc>({ method: 'eth_sendRawTransactionSync', params: [await signTransfer(), '0x7d0'] })
    expect(receipt.status).toBe('0x1')
  })

  test.each([
    [-1, /cannot unmarshal number -1/],
    [1.5, /cannot unmarshal number 1.5/],
    [60_000, /time out too long, timeout: 60000 ms, max: 6000 ms/],
    ['0x0ea60', /leading zero/],
  ])('timeout %s is refused with -32602', async (timeout, message) => {
    const error = await devnet.request<LooseRpc>({ method: 'eth_sendRawTransactionSync', params: ['0x02', timeout] }).catch((e) => e)
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(message)
  })
})

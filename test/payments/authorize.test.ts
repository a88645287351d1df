import { createClient, custom, recoverTypedDataAddress, type Hex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import {
  type Authorization,
  InvalidNonceError,
  InvalidValidityWindowError,
  SignatureVerificationError,
  captureMethodOf,
  createAuthorization,
  signAuthorization,
  toTypedData,
  verifyAuthorizationSignature,
} from '../../src/payments/index.js'

const mnemonic = 'test test test test test test test test test test test junk'
const payer = mnemonicToAccount(mnemonic, { addressIndex: 1 })
const shop = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const domain = {
  name: 'USD Coin',
  version: '2',
  chainId: 31337,
  verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
} as const
const now = () => 1_750_000_000_500
const fixedNonce = () => `0x${'42'.repeat(32)}` as Hex

describe('createAuthorization', () => {
  test('default', () => {
    const authorization = createAuthorization({
      domain,
      from: payer.address,
      to: shop.address,
      amount: '12.50',
      now,
      nonceSource: fixedNonce,
    })
    expect(authorization).toMatchInlineSnapshot(`
      {
        "domain": {
          "chainId": 31337,
          "name": "USD Coin",
          "verifyingContract": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
          "version": "2",
        },
        "from": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "nonce": "0x4242424242424242424242424242424242424242424242424242424242424242",
        "primaryType": "ReceiveWithAuthorization",
        "to": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        "validAfter": 1749999940n,
        "validBefore": 1750000900n,
        "value": 12500000n,
      }
    `)
  })

  test('behavior: a new nonce from a cryptographic source for every attempt', () => {
    const a = createAuthorization({ domain, from: payer.address, to: shop.address, amount: 1n })
    const b = createAuthorization({ domain, from: payer.address, to: shop.address, amount: 1n })
    expect(a.nonce).toMatch(/^0x[0-9a-f]{64}$/)
    expect(a.nonce).not.toBe(b.nonce)
  })

  test('args: window and primary type', () => {
    const authorization = createAuthorization({
      domain,
      from: payer.address,
      to: shop.address,
      amount: 5n,
      now,
      validFor: 60,
      primaryType: 'TransferWithAuthorization',
    })
    expect(authorization.validBefore - authorization.validAfter).toBe(120n)
    expect(captureMethodOf(authorization.primaryType)).toBe('transferWithAuthorization')
    const fixed = createAuthorization({ domain, from: payer.address, to: shop.address, amount: 5n, validAfter: 0n, validBefore: 2n ** 256n - 1n })
    expect(fixed.validAfter).toBe(0n)
  })

  test('error: empty window', () => {
    expect(() =>
      createAuthorization({ domain, from: payer.address, to: shop.address, amount: 5n, validAfter: 10n, validBefore: 11n }),
    ).toThrow(InvalidValidityWindowError)
  })

  test('error: nonce source returns something else than 32 bytes', () => {
    expect(() =>
      createAuthorization({ domain, from: payer.address, to: shop.address, amount: 5n, nonceSource: () => '0x1234' }),
    ).toThrow(InvalidNonceError)
  })

  test('error: amount', () => {
    expect(() => createAuthorization({ domain, from: payer.address, to: shop.address, amount: '1.1234567' })).toThrow(
      'it has 7 decimal places',
    )
  })
})

describe('signAuthorization', () => {
  const authorization = createAuthorization({ domain, from: payer.address, to: shop.address, amount: '1', now, nonceSource: fixedNonce })

  test('default: local account', async () => {
    const signature = await signAuthorization({ authorization, signer: payer })
    expect(await recoverTypedDataAddress({ ...toTypedData(authorization), signature })).toBe(payer.address)
    expect(await verifyAuthorizationSignature({ authorization, signature })).toBe(true)
  })

  test('behavior: Receive and Transfer signatures differ (different type hashes)', async () => {
    const receive = await signAuthorization({ authorization, signer: payer })
    const transfer = await signAuthorization({ authorization: { ...authorization, primaryType: 'TransferWithAuthorization' }, signer: payer })
    expect(receive).not.toBe(transfer)
    // A Transfer signature does not verify as a Receive authorization.
    expect(await verifyAuthorizationSignature({ authorization, signature: transfer })).toBe(false)
  })

  test('args: WalletClient over JSON-RPC uses eth_signTypedData_v4', async () => {
    const calls: string[] = []
    const client = createClient({
      transport: custom({
        async request({ method, params }) {
          calls.push(method)
          if (method === 'eth_signTypedData_v4') {
            const [, json] = params as [string, string]
            const typed = JSON.parse(json)
            return payer.signTypedData({ ...typed, message: typed.message })
          }
          throw new Error(`unexpected ${method}`)
        },
      }),
    })
    const signature = await signAuthorization({ authorization, signer: client })
    expect(calls).toEqual(['eth_signTypedData_v4'])
    expect(await verifyAuthorizationSignature({ authorization, signature })).toBe(true)
  })

  test('error: the wallet signs with another key', async () => {
    const impostor = privateKeyToAccount(`0x${'01'.repeat(32)}`)
    const wallet = { ...payer, signTypedData: impostor.signTypedData } as typeof payer
    const error = await signAuthorization({ authorization, signer: wallet }).catch((e) => e)
    expect(error).toBeInstanceOf(SignatureVerificationError)
    expect(error.shortMessage).toMatchInlineSnapshot(
      `"The wallet's ReceiveWithAuthorization signature does not verify for the payer 0x70997970C51812dc3A010C7d01b50e0d17dc79C8."`,
    )
  })
})

describe('toTypedData', () => {
  test('behavior: reproduces the x402 EIP-3009 vector', async () => {
    // x402 spec example (coinbase/x402 specs/schemes/exact/scheme_exact_evm.md), as in
    // shared/conformance/eip3009/eip712-vectors.json.
    const vector = {
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
      message: {
        from: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
        to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
        value: '10000',
        validAfter: '1740672089',
        validBefore: '1740672154',
        nonce: '0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480',
      },
      signature:
        '0x2d6a7588d6acca505cbf0d9a4a227e0c52c6c34008c8e8986a1283259764173608a2ce6496642e377d6da8dbbf5836e9bd15092f9ecab05ded3d6293af148b571c',
      expectedSigner: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
    } as const
    const authorization: Authorization = {
      primaryType: 'TransferWithAuthorization',
      domain: vector.domain,
      from: vector.message.from as Hex,
      to: vector.message.to as Hex,
      value: BigInt(vector.message.value!),
      validAfter: BigInt(vector.message.validAfter!),
      validBefore: BigInt(vector.message.validBefore!),
      nonce: vector.message.nonce as Hex,
    }
    expect(await recoverTypedDataAddress({ ...toTypedData(authorization), signature: vector.signature })).toBe(vector.expectedSigner)
    expect(await verifyAuthorizationSignature({ authorization, signature: vector.signature })).toBe(true)
    expect(
      await verifyAuthorizationSignature({ authorization: { ...authorization, primaryType: 'ReceiveWithAuthorization' }, signature: vector.signature }),
    ).toBe(false)
  })
})

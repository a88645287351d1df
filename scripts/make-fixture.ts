/**
 * `npm run fixture:build`: regenerates fixtures/payments.json, the ready
 * fixture the tests and the README's example start from. Never edit that
 * file by hand: test/fixtures/committed.test.ts fails when it differs from
 * what this script produces.
 *
 * The chain (default config, virtual clock, manual mining, so every run gives
 * the same bytes):
 *   block 1  order A-1: account 1 signs a ReceiveWithAuthorization of 12.50
 *            USDC to the merchant (account 2), who captures it.
 *   block 2  order A-2: account 1 signs a TransferWithAuthorization of 5 USDC
 *            to the merchant; account 4 relays it.
 *   block 3  order A-3: account 3 signs a ReceiveWithAuthorization of 7 USDC,
 *            then cancels it on chain (cancelAuthorization).
 *   pending  order A-4: account 3 signs 1.25 USDC to the merchant, who
 *            captures it; the capture is pre-confirmed, not sealed.
 *   pool     account 5 sends 1 ETH to account 6, not pre-confirmed yet.
 * Nonces are keccak256("devnet fixture A-<n>"); every authorization is valid
 * from 0 until genesis + 1 day.
 *
 * `--out FILE` writes elsewhere (default fixtures/payments.json).
 */
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type Hex, createPublicClient, custom, encodeFunctionData, keccak256, parseSignature, parseUnits, stringToHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createDevnet } from '../src/index.js'
import { writeFileAtomic } from '../src/node/fixture/file.js'
import { authorizationTypes, tokenAbi } from '../src/payments/abi.js'
import { readTokenDomain } from '../src/payments/domain.js'

export const paymentsFixturePath = fileURLToPath(new URL('../fixtures/payments.json', import.meta.url))

/** Builds the payments fixture and returns its text. */
export async function buildPaymentsFixture(): Promise<string> {
  const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  try {
    const client = createPublicClient({ transport: custom({ request: devnet.request }) })
    const token = devnet.token.address
    const domain = await readTokenDomain(client, token)
    const account = (index: number) => mnemonicToAccount(devnet.config.mnemonic, { addressIndex: index })
    const merchant = account(2).address
    const validBefore = devnet.config.genesisTimestamp + 86_400n
    const send = (from: Hex, data: Hex) =>
      devnet.request({ method: 'eth_sendTransaction', params: [{ from, to: token, data }] })

    /** Signs an EIP-3009 authorization with the payer's key; returns the call arguments up to the signature. */
    const authorize = async (order: number, payer: number, primaryType: 'ReceiveWithAuthorization' | 'TransferWithAuthorization', amount: string) => {
      const message = {
        from: account(payer).address,
        to: merchant,
        value: parseUnits(amount, 6),
        validAfter: 0n,
        validBefore,
        nonce: keccak256(stringToHex(`devnet fixture A-${order}`)),
      }
      const signature = await account(payer).signTypedData({ domain, types: authorizationTypes[primaryType], primaryType, message } as never)
      const { v, r, s } = parseSignature(signature)
      return [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s] as const
    }

    // receive, captured by the merchant.
    const a1 = await authorize(1, 1, 'ReceiveWithAuthorization', '12.50')
    await send(merchant, encodeFunctionData({ abi: tokenAbi, functionName: 'receiveWithAuthorization', args: a1 }))
    await devnet.seal()
    // transfer, relayed by a third party.
    const a2 = await authorize(2, 1, 'TransferWithAuthorization', '5')
    await send(account(4).address, encodeFunctionData({ abi: tokenAbi, functionName: 'transferWithAuthorization', args: a2 }))
    await devnet.seal()
    // signed, then canceled by the payer before any capture.
    const a3 = await authorize(3, 3, 'ReceiveWithAuthorization', '7')
    const cancel = await account(3).signTypedData({
      domain,
      types: authorizationTypes.CancelAuthorization,
      primaryType: 'CancelAuthorization',
      message: { authorizer: a3[0], nonce: a3[5] },
    })
    const c = parseSignature(cancel)
    await send(a3[0], encodeFunctionData({ abi: tokenAbi, functionName: 'cancelAuthorization', args: [a3[0], a3[5], Number(c.v), c.r, c.s] }))
    await devnet.seal()
    // captured and pre-confirmed, not sealed.
    const a4 = await authorize(4, 3, 'ReceiveWithAuthorization', '1.25')
    await send(merchant, encodeFunctionData({ abi: tokenAbi, functionName: 'receiveWithAuthorization', args: a4 }))
    await devnet.preconfirm()
    // A plain transfer still waiting in the pool.
    await devnet.request({
      method: 'eth_sendTransaction',
      params: [{ from: account(5).address, to: account(6).address, value: `0x${(10n ** 18n).toString(16)}` }],
    })
    return await devnet.node.dumpFixtureText()
  } finally {
    await devnet.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--out')
  const out = at >= 0 ? process.argv[at + 1]! : paymentsFixturePath
  const text = await buildPaymentsFixture()
  await writeFileAtomic(out, text)
  console.log(`wrote ${out} (${Buffer.byteLength(text)} bytes)`)
}

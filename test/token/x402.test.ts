import { type Address, type Hex, hashTypedData, parseSignature, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { actors, createHarness, readShared, sharedFile } from './helpers.js'

/**
 * The published x402 example authorization (shared/conformance/eip3009/eip712-vectors.json)
 * must be accepted by the token when it sits where the signer expected it:
 * Base Sepolia USDC's address, name "USDC", version "2", chain 84532, and a
 * block timestamp strictly inside (validAfter, validBefore).
 */

const vectorsPath = 'conformance/eip3009/eip712-vectors.json'

type Vector = {
  name: string
  domain: { name: string; version: string; chainId: number; verifyingContract: Address }
  types: Record<string, { name: string; type: string }[]>
  primaryType: string
  message: Record<string, unknown>
  signature: Hex
  expectedSigner?: Address
  privateKey?: Hex
  derived: { domainSeparator: Hex; digest: Hex; v?: number; r?: Hex; s?: Hex; signature?: Hex }
}

describe.skipIf(!sharedFile(vectorsPath))(`x402 EIP-3009 vector (skipped: ../shared/${vectorsPath} absent)`, () => {
  const vectors = sharedFile(vectorsPath) ? readShared<{ vectors: Vector[] }>(vectorsPath).vectors : []
  const x402 = vectors.find((v) => v.name === 'x402-exact-evm-eip3009-base-sepolia')!
  const message = () => ({
    from: x402.message.from as Address,
    to: x402.message.to as Address,
    value: BigInt(x402.message.value as string),
    validAfter: BigInt(x402.message.validAfter as string),
    validBefore: BigInt(x402.message.validBefore as string),
    nonce: x402.message.nonce as Hex,
  })
  const { EIP712Domain: _, ...types } = x402?.types ?? {}

  const harness = async (overrides: { chainId?: number; name?: string } = {}) => {
    const h = await createHarness({
      chainId: overrides.chainId ?? x402.domain.chainId,
      address: x402.domain.verifyingContract,
      name: overrides.name ?? x402.domain.name,
      holders: [{ address: x402.expectedSigner!, units: 1_000_000n }],
    })
    h.setTimestamp(message().validAfter + 30n)
    return h
  }

  test('viem hashes and recovers it as the vector says', async () => {
    const typed = { domain: x402.domain, types, primaryType: x402.primaryType, message: message() } as never
    expect(hashTypedData(typed)).toBe(x402.derived.digest)
    expect(await recoverTypedDataAddress({ ...(typed as object), signature: x402.signature } as never)).toBe(x402.expectedSigner)
  })

  test('the token reports the vector domain separator', async () => {
    const h = await harness()
    expect(await h.read('DOMAIN_SEPARATOR')).toBe(x402.derived.domainSeparator)
  })

  test.each(['vrs', 'bytes'] as const)('the token accepts it (%s interface) inside its validity window', async (form) => {
    const h = await harness()
    const m = message()
    const { v, r, s } = parseSignature(x402.signature)
    expect(Number(v)).toBe(x402.derived.v)
    const sig = form === 'vrs' ? [Number(v), r, s] : [x402.signature]
    const outcome = await h.write(actors.charlie, 'transferWithAuthorization', [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, ...sig])
    expect(outcome.revert).toBeUndefined()
    expect(outcome.events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer'])
    expect(await h.balanceOf(m.to)).toBe(m.value)
    expect(await h.authorizationState(m.from, m.nonce)).toBe(true)
  })

  test('and rejects it outside the window, on another chain, or under another name', async () => {
    const m = message()
    const args = [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, x402.signature]
    const h = await harness()
    h.setTimestamp(m.validBefore)
    expect((await h.write(actors.charlie, 'transferWithAuthorization', args)).revert).toBe('FiatTokenV2: authorization is expired')
    h.setTimestamp(m.validAfter)
    expect((await h.write(actors.charlie, 'transferWithAuthorization', args)).revert).toBe('FiatTokenV2: authorization is not yet valid')
    const mainnet = await harness({ chainId: 8453 })
    expect((await mainnet.write(actors.charlie, 'transferWithAuthorization', args)).revert).toBe('FiatTokenV2: invalid signature')
    const renamed = await harness({ name: 'USD Coin' })
    expect((await renamed.write(actors.charlie, 'transferWithAuthorization', args)).revert).toBe('FiatTokenV2: invalid signature')
  })

  test('the EIP-712 spec example signs to the spec signature (sanity check of the signing path)', async () => {
    const mail = vectors.find((v) => v.name === 'eip712-spec-mail-example')!
    const { EIP712Domain: __, ...mailTypes } = mail.types
    const signature = await privateKeyToAccount(mail.privateKey!).signTypedData({
      domain: mail.domain,
      types: mailTypes,
      primaryType: mail.primaryType,
      message: mail.message,
    } as never)
    expect(signature).toBe(mail.derived.signature)
  })
})

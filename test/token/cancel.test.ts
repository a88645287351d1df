import { type Address, type Hex, keccak256, maxUint256, stringToHex } from 'viem'
import { beforeEach, describe, expect, test } from 'vitest'
import {
  actors,
  createHarness,
  type Harness,
  nonceOf,
  payerCombos,
  payerAddress,
  signatureArgs,
  signTyped,
} from './helpers.js'

/** Rows C1–C6 (cancelAuthorization), for EOA and ERC-1271 authorizers, in both signature interfaces. */

describe.each(payerCombos)('cancelAuthorization — $kind authorizer, $form signature', ({ kind, form }) => {
  let h: Harness
  let authorizer: Address
  const nonce = nonceOf(`cancel-${kind}-${form}`)

  beforeEach(async () => {
    h = await createHarness()
    authorizer = payerAddress(h, kind)
  })

  const signCancel = (signer = actors.alice, n: Hex = nonce) =>
    signTyped(h, signer, 'CancelAuthorization', { authorizer, nonce: n })
  const cancel = async (signature: Hex, n: Hex = nonce) =>
    h.write(actors.charlie, 'cancelAuthorization', [authorizer, n, ...signatureArgs(signature, form)])
  const transferAuth = () => ({
    from: authorizer,
    to: actors.bob.address,
    value: 1_000_000n,
    validAfter: 0n,
    validBefore: maxUint256,
    nonce,
  })
  const transfer = async () => {
    const a = transferAuth()
    const signature = await signTyped(h, actors.alice, 'TransferWithAuthorization', a)
    return h.write(actors.charlie, 'transferWithAuthorization', [
      a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, ...signatureArgs(signature, form),
    ])
  }

  test('C1 has the expected type hash', async () => {
    const expected = '0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429'
    expect(await h.read('CANCEL_AUTHORIZATION_TYPEHASH')).toBe(expected)
    expect(keccak256(stringToHex('CancelAuthorization(address authorizer,bytes32 nonce)'))).toBe(expected)
  })

  test('C2 cancels an unused authorization; using it afterwards reverts', async () => {
    expect(await h.authorizationState(authorizer, nonce)).toBe(false)
    const outcome = await cancel(await signCancel())
    expect(outcome.revert).toBeUndefined()
    expect(outcome.events).toEqual([
      { address: h.token.toLowerCase(), eventName: 'AuthorizationCanceled', args: { authorizer, nonce } },
    ])
    expect(await h.authorizationState(authorizer, nonce)).toBe(true)
    const used = await transfer()
    expect(used.revert).toBe('FiatTokenV2: authorization is used or canceled')
    // The nonce space is shared: a receive authorization with that nonce is dead too.
    const a = transferAuth()
    const receiveSig = await signTyped(h, actors.alice, 'ReceiveWithAuthorization', a)
    const receive = await h.write(actors.bob, 'receiveWithAuthorization', [
      a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, ...signatureArgs(receiveSig, form),
    ])
    expect(receive.revert).toBe('FiatTokenV2: authorization is used or canceled')
  })

  test("C3 cannot cancel someone else's authorization", async () => {
    const outcome = await cancel(await signCancel(actors.bob))
    expect(outcome.revert).toBe('FiatTokenV2: invalid signature')
    expect(await h.authorizationState(authorizer, nonce)).toBe(false)
    expect((await transfer()).status).toBe('success')
  })

  test('C4 reverts if the authorization has already been used', async () => {
    expect((await transfer()).status).toBe('success')
    expect((await cancel(await signCancel())).revert).toBe('FiatTokenV2: authorization is used or canceled')
  })

  test('C5 reverts if the authorization has already been canceled', async () => {
    const signature = await signCancel()
    expect((await cancel(signature)).status).toBe('success')
    expect((await cancel(signature)).revert).toBe('FiatTokenV2: authorization is used or canceled')
  })

  test('C6 reverts if the contract is paused', async () => {
    await h.write(actors.pauser, 'pause', [])
    expect((await cancel(await signCancel())).revert).toBe('Pausable: paused')
    expect(await h.authorizationState(authorizer, nonce)).toBe(false)
  })

  test('has no blacklist check (a blacklisted authorizer may still cancel)', async () => {
    await h.write(actors.blacklister, 'blacklist', [authorizer])
    expect((await cancel(await signCancel())).status).toBe('success')
  })

  test('check order: paused > used > signature', async () => {
    expect((await transfer()).status).toBe('success')
    const badSig = await signCancel(actors.bob)
    expect((await cancel(badSig)).revert).toBe('FiatTokenV2: authorization is used or canceled')
    await h.write(actors.pauser, 'pause', [])
    expect((await cancel(badSig)).revert).toBe('Pausable: paused')
  })
})

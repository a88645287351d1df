import { type Address, type Hex, keccak256, maxUint256, stringToHex } from 'viem'
import { beforeEach, describe, expect, test } from 'vitest'
import { maxBalance, setBalanceWrites } from '../../src/evm/tokenSlots.js'
import {
  actors,
  createHarness,
  type Harness,
  initialUnits,
  nonceOf,
  payerCombos,
  payerAddress,
  signatureArgs,
  signTyped,
} from './helpers.js'

/**
 * Rows T1–T12 (transferWithAuthorization) and R1–R12 (receiveWithAuthorization)
 * of shared/conformance/eip3009/circle-stablecoin-evm-behaviors.md, each run for
 * an EOA payer and an ERC-1271 smart-wallet payer, in the (v,r,s) and the
 * `bytes signature` interface.
 */

const variants = [
  {
    fn: 'transferWithAuthorization',
    primaryType: 'TransferWithAuthorization',
    typeHashFn: 'TRANSFER_WITH_AUTHORIZATION_TYPEHASH',
    typeHash: '0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267',
    // Anyone may relay a transfer authorization; Charlie does, as in Circle's tests.
    submitter: actors.charlie,
    row: 'T',
  },
  {
    fn: 'receiveWithAuthorization',
    primaryType: 'ReceiveWithAuthorization',
    typeHashFn: 'RECEIVE_WITH_AUTHORIZATION_TYPEHASH',
    typeHash: '0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8',
    // Only the payee may submit a receive authorization.
    submitter: actors.bob,
    row: 'R',
  },
] as const

type Authorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }

describe.each(variants)('$fn', (variant) => {
  describe.each(payerCombos)('$kind payer, $form signature', ({ kind, form }) => {
    let h: Harness
    let from: Address
    const to = actors.bob.address

    beforeEach(async () => {
      h = await createHarness()
      from = payerAddress(h, kind)
    })

    const auth = (overrides: Partial<Authorization> = {}): Authorization => ({
      from,
      to,
      value: 7_000_000n,
      validAfter: 0n,
      validBefore: maxUint256,
      nonce: nonceOf(`${variant.fn}-${kind}-${form}`),
      ...overrides,
    })
    const sign = (a: Authorization, signer = actors.alice) => signTyped(h, signer, variant.primaryType, a)
    const submit = (a: Authorization, signature: Hex, submitter = variant.submitter) =>
      h.write(submitter, variant.fn, [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, ...signatureArgs(signature, form)])
    const expectRevert = async (a: Authorization, signature: Hex, reason: string, submitter = variant.submitter) => {
      const outcome = await submit(a, signature, submitter)
      expect(outcome.status).toBe('reverted')
      expect(outcome.revert).toBe(reason)
      return outcome
    }

    test(`${variant.row}1 has the expected type hash`, async () => {
      expect(await h.read(variant.typeHashFn)).toBe(variant.typeHash)
      const typeString = `${variant.primaryType}(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)`
      expect(keccak256(stringToHex(typeString))).toBe(variant.typeHash)
    })

    test(`${variant.row}2 executes a transfer when a valid authorization is given`, async () => {
      const a = auth()
      expect(await h.authorizationState(from, a.nonce)).toBe(false)
      const outcome = await submit(a, await sign(a))
      expect(outcome.revert).toBeUndefined()
      expect(outcome.status).toBe('success')
      expect(await h.balanceOf(from)).toBe(initialUnits - a.value)
      expect(await h.balanceOf(to)).toBe(a.value)
      expect(await h.authorizationState(from, a.nonce)).toBe(true)
      expect(outcome.events).toEqual([
        { address: h.token.toLowerCase(), eventName: 'AuthorizationUsed', args: { authorizer: from, nonce: a.nonce } },
        { address: h.token.toLowerCase(), eventName: 'Transfer', args: { from, to, value: a.value } },
      ])
    })

    test(`${variant.row}3 reverts if the signature does not match given parameters`, async () => {
      const a = auth()
      const signature = await sign(a)
      await expectRevert({ ...a, value: a.value * 2n }, signature, 'FiatTokenV2: invalid signature')
    })

    test(`${variant.row}4 reverts if the signature is not signed with the right key`, async () => {
      const a = auth()
      await expectRevert(a, await sign(a, actors.bob), 'FiatTokenV2: invalid signature')
      expect(await h.authorizationState(from, a.nonce)).toBe(false)
    })

    test(`${variant.row}5 reverts if the authorization is not yet valid (strict validAfter < now)`, async () => {
      const now = h.getTimestamp()
      const later = auth({ validAfter: now + 86_400n })
      await expectRevert(later, await sign(later), 'FiatTokenV2: authorization is not yet valid')
      const edge = auth({ validAfter: now })
      await expectRevert(edge, await sign(edge), 'FiatTokenV2: authorization is not yet valid')
      const ok = auth({ validAfter: now - 1n })
      expect((await submit(ok, await sign(ok))).status).toBe('success')
    })

    test(`${variant.row}6 reverts if the authorization is expired (strict now < validBefore)`, async () => {
      const now = h.getTimestamp()
      const expired = auth({ validBefore: now })
      await expectRevert(expired, await sign(expired), 'FiatTokenV2: authorization is expired')
      const ok = auth({ validBefore: now + 1n })
      expect((await submit(ok, await sign(ok))).status).toBe('success')
    })

    test(`${variant.row}7 reverts if the authorization has already been used`, async () => {
      const a = auth({ value: 1_000_000n })
      const signature = await sign(a)
      expect((await submit(a, signature)).status).toBe('success')
      await expectRevert(a, signature, 'FiatTokenV2: authorization is used or canceled')
      expect(await h.balanceOf(to)).toBe(1_000_000n)
    })

    test(`${variant.row}8 reverts if the nonce was already used by the signer with other parameters`, async () => {
      const first = auth({ value: 1_000_000n })
      expect((await submit(first, await sign(first))).status).toBe('success')
      const second = auth({ value: 2_000_000n })
      await expectRevert(second, await sign(second), 'FiatTokenV2: authorization is used or canceled')
    })

    test(`${variant.row}9 reverts if the authorization includes an amount above the balance`, async () => {
      const a = auth({ value: initialUnits + 1n })
      await expectRevert(a, await sign(a), 'ERC20: transfer amount exceeds balance')
      expect(await h.authorizationState(from, a.nonce)).toBe(false)
    })

    test(`${variant.row}10 reverts if the contract is paused`, async () => {
      expect((await h.write(actors.pauser, 'pause', [])).status).toBe('success')
      const a = auth()
      await expectRevert(a, await sign(a), 'Pausable: paused')
    })

    test(`${variant.row}11 reverts if the payer or the payee is blacklisted`, async () => {
      const a = auth()
      const signature = await sign(a)
      await h.write(actors.blacklister, 'blacklist', [from])
      await expectRevert(a, signature, 'Blacklistable: account is blacklisted')
      await h.write(actors.blacklister, 'unBlacklist', [from])
      await h.write(actors.blacklister, 'blacklist', [to])
      await expectRevert(a, signature, 'Blacklistable: account is blacklisted')
      await h.write(actors.blacklister, 'unBlacklist', [to])
      expect((await submit(a, signature)).status).toBe('success')
    })

    test(`${variant.row}12 reverts if the recipient balance would exceed 2^255 - 1`, async () => {
      await h.writeSlots(await setBalanceWrites(to, maxBalance, h.readSlot))
      const a = auth()
      await expectRevert(a, await sign(a), 'FiatTokenV2_2: Balance exceeds (2^255 - 1)')
      expect(await h.balanceOf(to)).toBe(maxBalance)
      expect(await h.balanceOf(from)).toBe(initialUnits)
    })

    if (variant.fn === 'receiveWithAuthorization') {
      test('R3 reverts if the caller is not the payee', async () => {
        const a = auth()
        await expectRevert(a, await sign(a), 'FiatTokenV2: caller must be the payee', actors.david)
        await expectRevert(a, await sign(a), 'FiatTokenV2: caller must be the payee', actors.charlie)
      })

      test('a TransferWithAuthorization signature is not a ReceiveWithAuthorization one', async () => {
        const a = auth()
        await expectRevert(a, await signTyped(h, actors.alice, 'TransferWithAuthorization', a), 'FiatTokenV2: invalid signature')
      })

      test('check order: paused, blacklist, then payee before the time checks', async () => {
        const expired = auth({ validBefore: h.getTimestamp() })
        const signature = await sign(expired)
        await expectRevert(expired, signature, 'FiatTokenV2: caller must be the payee', actors.david)
        await h.write(actors.blacklister, 'blacklist', [from])
        await expectRevert(expired, signature, 'Blacklistable: account is blacklisted', actors.david)
        await h.write(actors.pauser, 'pause', [])
        await expectRevert(expired, signature, 'Pausable: paused', actors.david)
      })
    } else {
      test('a ReceiveWithAuthorization signature is not a TransferWithAuthorization one', async () => {
        const a = auth()
        await expectRevert(a, await signTyped(h, actors.alice, 'ReceiveWithAuthorization', a), 'FiatTokenV2: invalid signature')
      })

      test('the relayer is not checked against the blacklist (only from and to are)', async () => {
        await h.write(actors.blacklister, 'blacklist', [actors.charlie.address])
        const a = auth()
        expect((await submit(a, await sign(a))).status).toBe('success')
      })
    }

    test('check order: pause > blacklist > validAfter > validBefore > nonce > signature > balance', async () => {
      const used = auth({ value: 1n, nonce: nonceOf('used') })
      expect((await submit(used, await sign(used))).status).toBe('success')
      // Each line makes the next-earlier check fail too, and expects the earlier message.
      const tooMuch = auth({ value: initialUnits * 2n })
      await expectRevert(tooMuch, await sign(tooMuch, actors.bob), 'FiatTokenV2: invalid signature')
      const usedBadSig = { ...used, value: initialUnits * 2n }
      await expectRevert(usedBadSig, await sign(usedBadSig, actors.bob), 'FiatTokenV2: authorization is used or canceled')
      const expiredUsed = { ...usedBadSig, validBefore: h.getTimestamp() }
      await expectRevert(expiredUsed, await sign(expiredUsed, actors.bob), 'FiatTokenV2: authorization is expired')
      const notYet = { ...expiredUsed, validAfter: h.getTimestamp() + 10n }
      await expectRevert(notYet, await sign(notYet, actors.bob), 'FiatTokenV2: authorization is not yet valid')
      await h.write(actors.blacklister, 'blacklist', [to])
      await expectRevert(notYet, await sign(notYet, actors.bob), 'Blacklistable: account is blacklisted')
      await h.write(actors.pauser, 'pause', [])
      await expectRevert(notYet, await sign(notYet, actors.bob), 'Pausable: paused')
    })
  })
})

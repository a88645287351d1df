import { type Address, type Hex, keccak256, maxUint256, stringToHex, zeroAddress } from 'viem'
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

/**
 * Rows P1–P13 (EIP-2612 permit) for EOA and ERC-1271 owners, in both signature
 * interfaces. P12 is V2/V2_1 behaviour (blacklisted parties rejected); this
 * token follows V2_2, so P13 (they are accepted) is what is asserted.
 */

type Permit = { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint }

describe.each(payerCombos)('permit — $kind owner, $form signature', ({ kind, form }) => {
  let h: Harness
  let owner: Address
  const spender = actors.charlie.address

  beforeEach(async () => {
    h = await createHarness()
    owner = payerAddress(h, kind)
  })

  const permitOf = (overrides: Partial<Permit> = {}): Permit => ({
    owner,
    spender,
    value: 7_000_000n,
    nonce: 0n,
    deadline: h.getTimestamp() + 3_600n,
    ...overrides,
  })
  const sign = (p: Permit, signer = actors.alice) => signTyped(h, signer, 'Permit', p)
  const submit = (p: Permit, signature: Hex) =>
    h.write(actors.david, 'permit', [p.owner, p.spender, p.value, p.deadline, ...signatureArgs(signature, form)])
  const expectRevert = async (p: Permit, signature: Hex, reason: string) => {
    const outcome = await submit(p, signature)
    expect(outcome.status).toBe('reverted')
    expect(outcome.revert).toBe(reason)
  }

  test('P1 has the expected type hash', async () => {
    const expected = '0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9'
    expect(await h.read('PERMIT_TYPEHASH')).toBe(expected)
    expect(
      keccak256(stringToHex('Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)')),
    ).toBe(expected)
  })

  test('P2 grants allowance when a valid permit is given (twice, nonce 0 then 1)', async () => {
    expect(await h.read('nonces', [owner])).toBe(0n)
    const first = permitOf()
    const outcome = await submit(first, await sign(first))
    expect(outcome.revert).toBeUndefined()
    expect(outcome.events).toEqual([
      { address: h.token.toLowerCase(), eventName: 'Approval', args: { owner, spender, value: first.value } },
    ])
    expect(await h.read('allowance', [owner, spender])).toBe(first.value)
    expect(await h.read('nonces', [owner])).toBe(1n)

    const second = permitOf({ value: 1_000_000n, nonce: 1n })
    expect((await submit(second, await sign(second))).status).toBe('success')
    expect(await h.read('allowance', [owner, spender])).toBe(1_000_000n)
    expect(await h.read('nonces', [owner])).toBe(2n)

    // The allowance is spendable with transferFrom.
    const spent = await h.write(actors.charlie, 'transferFrom', [owner, actors.bob.address, 400_000n])
    expect(spent.revert).toBeUndefined()
    expect(await h.read('allowance', [owner, spender])).toBe(600_000n)
    expect(await h.balanceOf(actors.bob.address)).toBe(400_000n)
  })

  test('P3 a deadline of 2^256 - 1 never expires; a deadline equal to now is still valid', async () => {
    h.setTimestamp(10n ** 12n)
    const forever = permitOf({ deadline: maxUint256 })
    expect((await submit(forever, await sign(forever))).status).toBe('success')
    const edge = permitOf({ nonce: 1n, deadline: h.getTimestamp() })
    expect((await submit(edge, await sign(edge))).status).toBe('success')
  })

  test("P4 reverts if the signature does not match the given parameters", async () => {
    const p = permitOf()
    await expectRevert({ ...p, value: p.value * 2n }, await sign(p), 'EIP2612: invalid signature')
  })

  test('P5 reverts if the signature is not signed with the right key', async () => {
    const p = permitOf()
    await expectRevert(p, await sign(p, actors.bob), 'EIP2612: invalid signature')
    expect(await h.read('nonces', [owner])).toBe(0n)
  })

  test('P6 reverts if the permit is expired (deadline < now)', async () => {
    const p = permitOf({ deadline: h.getTimestamp() - 1n })
    await expectRevert(p, await sign(p), 'FiatTokenV2: permit is expired')
  })

  test('P7 reverts if the nonce given does not match the next nonce', async () => {
    const p = permitOf({ nonce: 1n })
    await expectRevert(p, await sign(p), 'EIP2612: invalid signature')
  })

  test('P8 reverts if the permit has already been used', async () => {
    const p = permitOf()
    const signature = await sign(p)
    expect((await submit(p, signature)).status).toBe('success')
    await expectRevert(p, signature, 'EIP2612: invalid signature')
  })

  test('P9 reverts if the spender is the zero address', async () => {
    const p = permitOf({ spender: zeroAddress })
    await expectRevert(p, await sign(p), 'ERC20: approve to the zero address')
  })

  test('P10 reverts if a TransferWithAuthorization signature is given', async () => {
    const p = permitOf()
    const signature = await signTyped(h, actors.alice, 'TransferWithAuthorization', {
      from: owner,
      to: spender,
      value: p.value,
      validAfter: 0n,
      validBefore: p.deadline,
      nonce: nonceOf('p10'),
    })
    await expectRevert(p, signature, 'EIP2612: invalid signature')
  })

  test('P11 reverts if the contract is paused', async () => {
    await h.write(actors.pauser, 'pause', [])
    const p = permitOf()
    await expectRevert(p, await sign(p), 'Pausable: paused')
  })

  test('P13 (V2_2) succeeds when the owner or the spender is blacklisted', async () => {
    await h.write(actors.blacklister, 'blacklist', [owner])
    await h.write(actors.blacklister, 'blacklist', [spender])
    const p = permitOf()
    expect((await submit(p, await sign(p))).status).toBe('success')
    expect(await h.read('allowance', [owner, spender])).toBe(p.value)
  })

  test('check order: paused > expired > signature > approve', async () => {
    const p = permitOf({ spender: zeroAddress, deadline: h.getTimestamp() - 1n })
    const badSig = await sign(p, actors.bob)
    await expectRevert({ ...p, deadline: h.getTimestamp() }, badSig, 'EIP2612: invalid signature')
    await expectRevert(p, badSig, 'FiatTokenV2: permit is expired')
    await h.write(actors.pauser, 'pause', [])
    await expectRevert(p, badSig, 'Pausable: paused')
  })
})

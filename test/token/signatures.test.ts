import { type Hex, maxUint256, numberToHex, parseSignature, serializeSignature, size } from 'viem'
import { beforeEach, describe, expect, test } from 'vitest'
import { actors, createHarness, type Harness, nonceOf, signTyped } from './helpers.js'

/**
 * The signature-format rows: the ECRecover library's checks run for EOA
 * signers and revert with its own messages before the FiatTokenV2 / EIP2612
 * "invalid signature" message; ERC-1271 signers skip them (the wallet decides).
 */

/** secp256k1 group order. */
const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The same signature with `s` replaced by `n - s` (and the parity flipped): valid for ecrecover, rejected by EIP-2. */
function highS(signature: Hex): Hex {
  const { r, s, yParity } = parseSignature(signature)
  return serializeSignature({ r, s: numberToHex(n - BigInt(s), { size: 32 }), yParity: yParity === 0 ? 1 : 0 })
}

/** The same signature with its last byte (v) replaced. */
function withV(signature: Hex, v: number): Hex {
  return `${signature.slice(0, 130)}${v.toString(16).padStart(2, '0')}` as Hex
}

describe('ECRecover checks (EOA signer)', () => {
  let h: Harness
  const auth = () => ({
    from: actors.alice.address,
    to: actors.bob.address,
    value: 1_000_000n,
    validAfter: 0n,
    validBefore: maxUint256,
    nonce: nonceOf('sig'),
  })
  const transferBytes = (signature: Hex) => {
    const a = auth()
    return h.write(actors.charlie, 'transferWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature])
  }
  const transferVrs = (v: number, r: Hex, s: Hex) => {
    const a = auth()
    return h.write(actors.charlie, 'transferWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s])
  }
  const sign = (signer = actors.alice) => signTyped(h, signer, 'TransferWithAuthorization', auth())

  beforeEach(async () => {
    h = await createHarness()
  })

  test('a packed signature of length != 65 reverts with the length message', async () => {
    const signature = await sign()
    expect(size(signature)).toBe(65)
    expect((await transferBytes(signature.slice(0, 130) as Hex)).revert).toBe('ECRecover: invalid signature length')
    expect((await transferBytes(`${signature}00`)).revert).toBe('ECRecover: invalid signature length')
    expect((await transferBytes('0x')).revert).toBe('ECRecover: invalid signature length')
  })

  test("s > secp256k1n/2 reverts with the 's' message, in both interfaces", async () => {
    const malleable = highS(await sign())
    expect((await transferBytes(malleable)).revert).toBe("ECRecover: invalid signature 's' value")
    const { r, s, v } = parseSignature(malleable)
    expect((await transferVrs(Number(v), r, s)).revert).toBe("ECRecover: invalid signature 's' value")
  })

  test("v outside {27, 28} (including 0/1 parity) reverts with the 'v' message", async () => {
    const signature = await sign()
    const { r, s, yParity } = parseSignature(signature)
    for (const v of [yParity, 29, 0, 1]) {
      expect((await transferVrs(v, r, s)).revert).toBe("ECRecover: invalid signature 'v' value")
      expect((await transferBytes(withV(signature, v))).revert).toBe("ECRecover: invalid signature 'v' value")
    }
    // The genuine signature still goes through afterwards: nothing was consumed.
    expect((await transferBytes(signature)).status).toBe('success')
  })

  test('a signature ecrecover cannot recover (r = 0) reverts with the plain ECRecover message', async () => {
    const zero = numberToHex(0n, { size: 32 })
    const one = numberToHex(1n, { size: 32 })
    expect((await transferVrs(27, zero, one)).revert).toBe('ECRecover: invalid signature')
  })

  test('ECRecover messages win over the FiatTokenV2 message (wrong signer, malformed)', async () => {
    const bobs = await sign(actors.bob)
    expect((await transferBytes(bobs)).revert).toBe('FiatTokenV2: invalid signature')
    expect((await transferBytes(highS(bobs))).revert).toBe("ECRecover: invalid signature 's' value")
  })

  test('receive, cancel and permit surface the same ECRecover messages', async () => {
    const a = { ...auth(), nonce: nonceOf('sig-receive') }
    const receive = await h.write(actors.bob, 'receiveWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, '0x1234'])
    expect(receive.revert).toBe('ECRecover: invalid signature length')
    const cancelSig = await signTyped(h, actors.alice, 'CancelAuthorization', { authorizer: a.from, nonce: a.nonce })
    const cancel = await h.write(actors.charlie, 'cancelAuthorization', [a.from, a.nonce, highS(cancelSig)])
    expect(cancel.revert).toBe("ECRecover: invalid signature 's' value")
    const permit = { owner: a.from, spender: actors.charlie.address, value: 1n, nonce: 0n, deadline: maxUint256 }
    const permitSig = await signTyped(h, actors.alice, 'Permit', permit)
    const viaBytes = await h.write(actors.charlie, 'permit', [permit.owner, permit.spender, permit.value, permit.deadline, permitSig.slice(0, 20)])
    expect(viaBytes.revert).toBe('ECRecover: invalid signature length')
    const { r, s } = parseSignature(permitSig)
    const viaVrs = await h.write(actors.charlie, 'permit', [permit.owner, permit.spender, permit.value, permit.deadline, 26, r, s])
    expect(viaVrs.revert).toBe("ECRecover: invalid signature 'v' value")
  })
})

describe('ERC-1271 signer: format checks are the wallet’s', () => {
  let h: Harness

  beforeEach(async () => {
    h = await createHarness()
  })

  test('a malformed signature for a contract payer is just "invalid signature"', async () => {
    const a = {
      from: h.wallet,
      to: actors.bob.address,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: maxUint256,
      nonce: nonceOf('1271-malformed'),
    }
    const signature = await signTyped(h, actors.alice, 'TransferWithAuthorization', a)
    const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const
    expect((await h.write(actors.charlie, 'transferWithAuthorization', [...args, signature.slice(0, 130)])).revert).toBe(
      'FiatTokenV2: invalid signature',
    )
    expect((await h.write(actors.charlie, 'transferWithAuthorization', [...args, withV(signature, 0)])).revert).toBe(
      'FiatTokenV2: invalid signature',
    )
    const permit = { owner: h.wallet, spender: actors.charlie.address, value: 1n, nonce: 0n, deadline: maxUint256 }
    const permitSig = await signTyped(h, actors.bob, 'Permit', permit)
    expect((await h.write(actors.charlie, 'permit', [permit.owner, permit.spender, permit.value, permit.deadline, permitSig])).revert).toBe(
      'EIP2612: invalid signature',
    )
  })
})

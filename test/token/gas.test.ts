import { maxUint256 } from 'viem'
import { expect, test } from 'vitest'
import { actors, createHarness, nonceOf, type SignatureForm, signatureArgs, signTyped } from './helpers.js'

/**
 * Gas of the payment entry points for an EOA signer in the warm, realistic
 * case: payer and payee both already hold tokens (non-zero → non-zero balance
 * writes), a fresh authorization nonce (a new slot, unavoidable), and for
 * permit an owner that has permitted before (nonce 1 → 2, allowance non-zero).
 * Figures are whole-transaction gas (21 000 intrinsic + calldata + execution),
 * printed so they can be compared across contract changes.
 */
test('gas used by transferWithAuthorization, receiveWithAuthorization, cancelAuthorization and permit', async () => {
  const h = await createHarness()
  const { alice, bob, charlie } = actors
  await h.write(alice, 'transfer', [bob.address, 1_000_000n])
  const gas: Record<string, bigint> = {}

  for (const form of ['vrs', 'bytes'] as SignatureForm[]) {
    for (const [fn, primaryType, submitter] of [
      ['transferWithAuthorization', 'TransferWithAuthorization', charlie],
      ['receiveWithAuthorization', 'ReceiveWithAuthorization', bob],
    ] as const) {
      const a = { from: alice.address, to: bob.address, value: 100_000n, validAfter: 0n, validBefore: maxUint256, nonce: nonceOf(`${fn}-${form}`) }
      const signature = await signTyped(h, alice, primaryType, a)
      const outcome = await h.write(submitter, fn, [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, ...signatureArgs(signature, form)])
      expect(outcome.status).toBe('success')
      gas[`${fn} (${form})`] = outcome.gasUsed
    }

    const nonce = nonceOf(`cancel-${form}`)
    const cancelSig = await signTyped(h, alice, 'CancelAuthorization', { authorizer: alice.address, nonce })
    const cancel = await h.write(charlie, 'cancelAuthorization', [alice.address, nonce, ...signatureArgs(cancelSig, form)])
    expect(cancel.status).toBe('success')
    gas[`cancelAuthorization (${form})`] = cancel.gasUsed

    for (const round of ['first', 'repeat'] as const) {
      const nonceValue = await h.read<bigint>('nonces', [alice.address])
      const p = { owner: alice.address, spender: charlie.address, value: 1_000_000n + nonceValue, nonce: nonceValue, deadline: maxUint256 }
      const permitSig = await signTyped(h, alice, 'Permit', p)
      const permit = await h.write(charlie, 'permit', [p.owner, p.spender, p.value, p.deadline, ...signatureArgs(permitSig, form)])
      expect(permit.status).toBe('success')
      // The "first" permit of the bytes round is already a repeat (nonce 2 → 3); only vrs shows a true first.
      if (form === 'vrs' || round === 'repeat') gas[`permit ${round === 'first' && form === 'vrs' ? 'first ' : ''}(${form})`] = permit.gasUsed
    }
  }

  console.log(`PaymentToken gas (EOA signer, warm):\n${Object.entries(gas).map(([k, v]) => `  ${k.padEnd(38)} ${v}`).join('\n')}`)
  for (const value of Object.values(gas)) expect(value).toBeLessThan(120_000n)
})

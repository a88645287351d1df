import { createBlock } from '@ethereumjs/block'
import { Common, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { describe, expect, it } from 'vitest'
import { classifyEngineError } from '../../src/evm/engineErrors.js'

/*
 * classifyEngineError reads @ethereumjs's words: each reason is provoked from
 * the installed library (creating or running a transaction it refuses), so an
 * upgrade that rewords a message fails here.
 */
const key = hexToBytes('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318')
const common = new Common({ chain: Mainnet, hardfork: 'prague' })
const to = createAddressFromString('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')

async function refusal(fields: { gasLimit?: bigint; maxFeePerGas?: bigint; nonce?: bigint; funds?: bigint; code?: boolean }) {
  const vm = await createVM({ common })
  const tx = createFeeMarket1559Tx({ to, value: 1n, gasLimit: fields.gasLimit ?? 21_000n, maxFeePerGas: fields.maxFeePerGas ?? 10n ** 9n, nonce: fields.nonce ?? 0n }, { common }).sign(key)
  const sender = tx.getSenderAddress()
  await vm.stateManager.putAccount(sender, new Account(0n, fields.funds ?? 10n ** 18n))
  if (fields.code) await vm.stateManager.putCode(sender, Uint8Array.of(0x00))
  const block = createBlock({ header: { baseFeePerGas: 7n, gasLimit: 30_000_000n, number: 1n, timestamp: 1n } }, { common })
  return runTx(vm, { tx, block }).then(
    () => expect.unreachable('the library ran the transaction'),
    (error: unknown) => error,
  )
}

describe('classifyEngineError: the typed reason of a refused transaction', () => {
  it('intrinsic gas, with the minimum', async () => {
    expect(classifyEngineError(await refusal({ gasLimit: 20_000n }))).toEqual({
      reason: 'intrinsic-gas',
      message: 'INTRINSIC_GAS_TOO_LOW: tx gas limit 20000 is lower than the minimum gas limit of 21000',
      minimum: 21_000n,
    })
  })

  it('fee below the base fee, funds, nonce, a sender with code (EIP-3607): the first sentence, without the dumps', async () => {
    const fee = classifyEngineError(await refusal({ maxFeePerGas: 6n }))
    expect(fee).toEqual({ reason: 'fee-below-base-fee', message: "Transaction's maxFeePerGas (6) is less than the block's baseFeePerGas (7)" })
    expect(classifyEngineError(await refusal({ funds: 1n }))).toMatchObject({ reason: 'insufficient-funds' })
    expect(classifyEngineError(await refusal({ nonce: 3n }))).toEqual({
      reason: 'nonce',
      message: "the tx doesn't have the correct nonce. account has nonce of: 0 tx has nonce of: 3",
    })
    expect(classifyEngineError(await refusal({ code: true }))).toEqual({ reason: 'sender-not-eoa', message: 'invalid sender address, address is not EOA (EIP-3607)' })
  })

  it('an initcode too large (EIP-3860), refused when the transaction is created', () => {
    let thrown: unknown
    try {
      createLegacyTx({ data: new Uint8Array(49_153), gasLimit: 30_000_000n, gasPrice: 1n }, { common })
    } catch (error) {
      thrown = error
    }
    expect(classifyEngineError(thrown)).toMatchObject({ reason: 'initcode-too-large' })
  })

  it('anything else is `other`, with its message', () => {
    expect(classifyEngineError(new Error('tx has a higher gas limit than the block (vm hf=prague -> block -> tx)'))).toEqual({
      reason: 'other',
      message: 'tx has a higher gas limit than the block',
    })
    expect(classifyEngineError('a string')).toEqual({ reason: 'other', message: 'a string' })
  })
})

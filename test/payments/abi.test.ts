import { toFunctionSignature, toEventSignature, type AbiEvent, type AbiFunction } from 'viem'
import { describe, expect, test } from 'vitest'
import { tokenAbi } from '../../src/payments/index.js'

// The library carries its own ABI (chain-agnostic); the devnet's token must
// implement every function and event of it with the same signature.
const entry = '../../src/artifacts/paymentToken.js'
const artifact = (await import(/* @vite-ignore */ entry).catch(() => undefined)) as
  | { paymentTokenAbi?: readonly (AbiFunction | AbiEvent | { type: string })[] }
  | undefined

describe.skipIf(!artifact?.paymentTokenAbi)('tokenAbi', () => {
  test('behavior: the devnet token implements every signature the library uses', () => {
    const signatures = new Set(
      artifact!.paymentTokenAbi!.flatMap((item) =>
        item.type === 'function'
          ? [toFunctionSignature(item as AbiFunction)]
          : item.type === 'event'
            ? [toEventSignature(item as AbiEvent)]
            : [],
      ),
    )
    const missing = tokenAbi
      .map((item) => (item.type === 'function' ? toFunctionSignature(item) : toEventSignature(item)))
      .filter((signature) => !signatures.has(signature))
    expect(missing).toEqual([])
  })
})

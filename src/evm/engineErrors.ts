/**
 * The typed reason of an error the engine's library throws when it refuses a
 * transaction (creating it, or running it before any execution), read from
 * @ethereumjs's messages in this one place: an upgrade that rewords them is
 * reviewed here, with test/evm/engineErrors.test.ts, which provokes each one
 * from the installed library. `message` is the library's first sentence
 * without the block and transaction dumps it appends in parentheses.
 */
export type EngineErrorReason =
  | { reason: 'intrinsic-gas'; message: string; minimum: bigint }
  | { reason: 'fee-below-base-fee'; message: string }
  | { reason: 'insufficient-funds'; message: string }
  | { reason: 'nonce'; message: string }
  | { reason: 'sender-not-eoa'; message: string }
  | { reason: 'initcode-too-large'; message: string }
  | { reason: 'other'; message: string }

export function classifyEngineError(error: unknown): EngineErrorReason {
  const full = error instanceof Error ? error.message : String(error)
  // ethereumjs appends its VM, block and tx dumps (`hf=…`, `type=…`) in parentheses; geth's message is what precedes.
  const message = full.replace(/ \([^()]*\b(?:hf|type)=[^()]*\)\.?$/s, '')
  // Matched on that part only: the block's dump names its baseFeePerGas whatever the refusal.
  const intrinsic = /lower than the minimum gas limit of (\d+)/.exec(message)
  if (intrinsic) return { reason: 'intrinsic-gas', message, minimum: BigInt(intrinsic[1]!) }
  if (/is less than the block's baseFeePerGas/.test(message)) return { reason: 'fee-below-base-fee', message }
  if (/enough funds/.test(message)) return { reason: 'insufficient-funds', message }
  if (/doesn't have the correct nonce/.test(message)) return { reason: 'nonce', message }
  if (/not EOA \(EIP-3607\)/.test(message)) return { reason: 'sender-not-eoa', message }
  if (/initcode/i.test(message)) return { reason: 'initcode-too-large', message }
  return { reason: 'other', message }
}

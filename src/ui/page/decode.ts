/** A log as JSON-RPC sends it. */
export type RpcLog = {
  address: string
  topics: string[]
  data: string
  blockNumber: string | null
  blockHash: string | null
  transactionHash: string
  logIndex: string
  removed?: boolean
}

/** A token event the page names; anything else is shown by its first topic. */
export type TokenEvent =
  | { kind: 'Transfer'; from: string; to: string; value: bigint }
  | { kind: 'Approval'; owner: string; spender: string; value: bigint }
  | { kind: 'AuthorizationUsed' | 'AuthorizationCanceled'; authorizer: string; nonce: string }
  | { kind: 'other'; topic: string }

// keccak256 of each event signature (PaymentToken.sol, as FiatToken V2_2 declares them).
const topics = {
  transfer: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  approval: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  used: '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5',
  canceled: '0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81',
} as const

const word = (topic: string | undefined) => `0x${(topic ?? '').slice(26)}`
const uint = (data: string) => (data.length >= 66 ? BigInt(data.slice(0, 66)) : 0n)

/** Decodes the token's events from their topics and data. */
export function decodeEvent(log: RpcLog): TokenEvent {
  const [topic0 = '', t1, t2] = log.topics
  if (topic0 === topics.transfer && log.topics.length === 3) return { kind: 'Transfer', from: word(t1), to: word(t2), value: uint(log.data) }
  if (topic0 === topics.approval && log.topics.length === 3)
    return { kind: 'Approval', owner: word(t1), spender: word(t2), value: uint(log.data) }
  if ((topic0 === topics.used || topic0 === topics.canceled) && log.topics.length === 3)
    return { kind: topic0 === topics.used ? 'AuthorizationUsed' : 'AuthorizationCanceled', authorizer: word(t1), nonce: t2! }
  return { kind: 'other', topic: topic0 }
}

/** The token's functions by selector, so a call that emitted nothing (a revert) still says what it tried. */
const selectors: Record<string, string> = {
  '0xa9059cbb': 'transfer',
  '0x095ea7b3': 'approve',
  '0x23b872dd': 'transferFrom',
  '0xef55bec6': 'receiveWithAuthorization',
  '0x88b7ab63': 'receiveWithAuthorization',
  '0xe3ee160e': 'transferWithAuthorization',
  '0xcf092995': 'transferWithAuthorization',
  '0x5a049a70': 'cancelAuthorization',
  '0xb7b72899': 'cancelAuthorization',
  '0xd505accf': 'permit',
  '0x9fd5a6cf': 'permit',
}

/** A call's function name when it is one of the token's, else its selector. */
export const functionName = (input: string) => selectors[input.slice(0, 10)] ?? input.slice(0, 10)

/** An ABI-encoded lone `string` (a call's return data, or revert data after its selector) to its text. */
export function abiString(data: string): string | undefined {
  const body = data.startsWith('0x') ? data.slice(2) : data
  if (body.length < 128) return undefined
  const length = Number.parseInt(body.slice(64, 128), 16)
  const hex = body.slice(128, 128 + length * 2)
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return new TextDecoder().decode(bytes)
}

/** `Error(string)` revert data to its reason; undefined for anything else. */
export function revertReason(data: string | undefined): string | undefined {
  if (!data?.startsWith('0x08c379a0')) return undefined
  return abiString(data.slice(10))
}

/** Integer units as a decimal amount: 12500000n, 6 → "12.5". */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n
  const abs = negative ? -value : value
  const base = 10n ** BigInt(decimals)
  const whole = abs / base
  const fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '')
  return `${negative ? '-' : ''}${whole.toLocaleString('en-US')}${fraction ? `.${fraction}` : ''}`
}

/** 0x1234…abcd */
export const short = (hex: string, keep = 4) => (hex.length > 2 + keep * 2 + 1 ? `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}` : hex)

/** A JSON-RPC quantity as a number (block numbers, counts). */
export const num = (quantity: string | null | undefined) => (quantity ? Number.parseInt(quantity, 16) : 0)

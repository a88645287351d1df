/**
 * The shared harness' eth_simulateV1 payloads (../shared/bench/peers.mjs stepSimulate), for the in-process and
 * process benches that reproduce step g: a sender with no funds of its own, given ETH and a token balance by state
 * overrides, sending the bench token (BenchToken.json, balances in slot 0's mapping).
 */
import { type Hex, encodeAbiParameters, encodeFunctionData, keccak256, pad, parseAbi, toHex } from 'viem'

/** An address named by a string, as the harness names its accounts. */
export const label = (s: string) => keccak256(toHex(s)).slice(0, 42) as Hex

const abi = parseAbi(['function transfer(address to, uint256 value) returns (bool)'])

/**
 * The three cases by the harness' names: one call, 100 calls to distinct recipients, and a traced ETH transfer
 * with a token transfer under validation. `maxFeePerGas` of the validated calls (100 gwei, as the harness).
 */
export function simulateCases(token: Hex, maxFeePerGas = 100_000_000_000n) {
  const X = label('sim-sender')
  const R = label('sim-recipient')
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [X, 0n]))
  const stateOverrides = { [X]: { balance: toHex(10n ** 21n) }, [token]: { stateDiff: { [slot]: pad(toHex(10n ** 12n)) } } }
  const xfer = (to: Hex) => ({ from: X, to: token, data: encodeFunctionData({ abi, functionName: 'transfer', args: [to, 1_000_000n] }) })
  const fee = { maxFeePerGas: toHex(maxFeePerGas), maxPriorityFeePerGas: toHex(1_000_000_000n), gas: toHex(200_000) }
  return {
    one_call: [{ blockStateCalls: [{ stateOverrides, calls: [xfer(R)] }], traceTransfers: false, validation: false }, 'latest'],
    hundred_calls: [
      { blockStateCalls: [{ stateOverrides, calls: Array.from({ length: 100 }, (_, i) => xfer(label(`sim-r-${i}`))) }], traceTransfers: false, validation: false },
      'latest',
    ],
    trace_transfers_validation: [
      { blockStateCalls: [{ stateOverrides, calls: [{ from: X, to: R, value: toHex(12345n), ...fee }, { ...xfer(R), ...fee }] }], traceTransfers: true, validation: true },
      'latest',
    ],
  } satisfies Record<string, unknown[]>
}

/** The same cases by the short names the in-process benches take on their command lines. */
export function simulateCasesShort(token: Hex, maxFeePerGas?: bigint): Record<'sim1' | 'sim100' | 'simtrace', unknown[]> {
  const cases = simulateCases(token, maxFeePerGas)
  return { sim1: cases.one_call, sim100: cases.hundred_calls, simtrace: cases.trace_transfers_validation }
}

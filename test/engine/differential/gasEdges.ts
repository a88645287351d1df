/**
 * Gas edges for the differential suite, where devnet's interpreter charges
 * gas in numbers (src/evm/numberGas.ts) and computes memory, copy, hash, log
 * and exponent gas synchronously (src/evm/syncGasHandlers.ts): each memory
 * opcode at offsets and lengths around 2^32 and 2^256 (the numeric shortcut's
 * bounds, expansions that run out of gas), every gas limit around the exact
 * cost of a call (out of gas at each opcode, the SSTORE sentry), GAS and a
 * CALL forwarding all but 1/64 of it, and frames given more than 2^53 gas
 * (a second devnet without the RPC gas cap, a block gas limit by override).
 * Each answer (status, gas used, return data, logs, errors) goes into the
 * transcript the two engines must agree on.
 */
import { type Hex, bytesToHex, numberToHex, toHex } from 'viem'
import { createDevnet } from '../../../src/index.js'
import type { LooseRpc } from '../../utils.js'
import { assemble } from './program.js'
import type { Entry } from './scenario.js'

type Rpc = (method: string, params: unknown[]) => Promise<unknown>
const op = {
  EXP: 0x0a, KECCAK256: 0x20, CALLDATALOAD: 0x35, CALLDATACOPY: 0x37, CODECOPY: 0x39, RETURNDATACOPY: 0x3e, POP: 0x50,
  MLOAD: 0x51, MSTORE: 0x52, MSTORE8: 0x53, SSTORE: 0x55, MSIZE: 0x59, GAS: 0x5a, MCOPY: 0x5e, PUSH0: 0x5f, LOG2: 0xa2,
  CALL: 0xf1, RETURN: 0xf3, REVERT: 0xfd,
} as const
const push = (value: bigint | number) => ({ push: BigInt(value) })
/** The call data word `i` (offset 32 i). */
const word = (i: number) => [push(32 * i), op.CALLDATALOAD]
/** Returns MSIZE and GAS as two words: what the memory grew to, and the gas left after it. */
const report = [op.MSIZE, op.PUSH0, op.MSTORE, op.GAS, push(32), op.MSTORE, push(64), op.PUSH0, op.RETURN]

/** One program per opcode, its operands from the call data: word 0 an offset (or base), word 1 a length (or exponent). */
const programs: Record<string, (number | { push: bigint })[]> = {
  mload: [...word(0), op.MLOAD, op.POP, ...report],
  mstore: [...word(1), ...word(0), op.MSTORE, ...report],
  mstore8: [...word(1), ...word(0), op.MSTORE8, ...report],
  keccak: [...word(1), ...word(0), op.KECCAK256, op.POP, ...report],
  calldatacopy: [...word(1), op.PUSH0, ...word(0), op.CALLDATACOPY, ...report],
  codecopy: [...word(1), push(3), ...word(0), op.CODECOPY, ...report],
  returndatacopy: [...word(1), op.PUSH0, ...word(0), op.RETURNDATACOPY, ...report],
  mcopy: [...word(1), push(64), ...word(0), op.MCOPY, ...report],
  log2: [push(7), push(9), ...word(1), ...word(0), op.LOG2, ...report],
  exp: [...word(1), ...word(0), op.EXP, op.POP, ...report],
  return: [...word(1), ...word(0), op.RETURN],
  revert: [...word(1), ...word(0), op.REVERT],
  // An SSTORE (the EIP-2200 sentry reads the gas left), then the report.
  sstore: [push(1), op.PUSH0, op.SSTORE, ...word(1), ...word(0), op.MSTORE, ...report],
}
const big = (e: number) => 1n << BigInt(e)
/** Offset (or base) and length (or exponent) pairs around the numeric shortcut's bounds and the word size. */
const operands: [bigint, bigint][] = [
  [0n, 0n], [0n, 32n], [31n, 1n], [5_000n, 100n], [big(32) - 32n, 32n], [big(32) - 1n, 1n], [big(32), 0n], [big(32), 1n],
  [0n, big(32)], [1_000n, big(32) - 1n], [big(20), 32n], [big(26), 32n], [big(255), 1n], [big(256) - 1n, 32n],
  [big(256) - 32n, 0n], [3n, big(255)], [2n, 255n], [7n, 0n],
]
const addressOf = (i: number) => `0x${(0xd00 + i).toString(16).padStart(40, '0')}` as Hex
const data = ([a, b]: [bigint, bigint]) => `0x${a.toString(16).padStart(64, '0')}${b.toString(16).padStart(64, '0')}` as Hex

export async function gasEdgesPhase(rpc: Rpc, entries: Entry[], sender: Hex): Promise<void> {
  const answer = async (method: string, params: unknown[]) => {
    try {
      return { result: await rpc(method, params) }
    } catch (e) {
      const error = e as { code?: number; message?: string; data?: unknown }
      return { error: { code: error.code, message: error.message, data: error.data } }
    }
  }
  const names = Object.keys(programs)
  const code = Object.fromEntries(names.map((name, i) => [addressOf(i), { code: bytesToHex(assemble(programs[name]!)) }]))
  const stateOverrides = { [sender]: { balance: toHex(10n ** 20n) }, ...code }
  // Every opcode at every operand pair, one simulated block per opcode.
  const blockStateCalls = names.map((name, i) => ({
    ...(i === 0 ? { stateOverrides } : {}),
    // 100k each: the request's 50M of gas (the RPC gas cap) covers every call, those that burn all of it included.
    calls: operands.map((pair) => ({ from: sender, to: addressOf(i), data: data(pair), gas: numberToHex(100_000) })),
  }))
  entries.push({ label: 'gas edges: memory, copy, hash, log, exponent operands', answer: await answer('eth_simulateV1', [{ blockStateCalls }, 'latest']) })

  // Every gas limit from 40 below to 10 above what the call needs: out of gas at each of its last opcodes.
  for (const [name, pair] of [['keccak', [0n, 2_000n]], ['sstore', [0n, 5n]], ['log2', [0n, 64n]]] as const) {
    const to = addressOf(names.indexOf(name))
    const probe = (await answer('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [{ from: sender, to, data: data([...pair]) }] }] }, 'latest'])) as {
      result?: { calls: { gasUsed: Hex }[] }[]
    }
    const used = Number(probe.result?.[0]?.calls[0]?.gasUsed ?? '0x5208')
    const calls = Array.from({ length: 51 }, (_, k) => ({ from: sender, to, data: data([...pair]), gas: numberToHex(used - 40 + k) }))
    entries.push({ label: `gas edges: ${name} at every gas limit near ${used}`, answer: await answer('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls }] }, 'latest']) })
  }

  // GAS, and a CALL of all the gas left (63/64 of it) into a child that reports its own GAS.
  const child = addressOf(100)
  const parent = addressOf(101)
  const forwarding = {
    [child]: { code: bytesToHex(assemble([op.GAS, op.PUSH0, op.MSTORE, push(32), op.PUSH0, op.RETURN])) },
    [parent]: { code: bytesToHex(assemble([push(32), op.PUSH0, op.PUSH0, op.PUSH0, op.PUSH0, push(BigInt(child)), op.GAS, op.CALL, op.POP, op.GAS, push(32), op.MSTORE, push(64), op.PUSH0, op.RETURN])) },
  }
  const gasLimits = [21_100, 21_500, 23_000, 25_000, 30_000, 100_000, 1_000_000]
  entries.push({
    label: 'gas edges: GAS and a CALL of all gas left',
    answer: await answer('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { ...stateOverrides, ...forwarding }, calls: gasLimits.map((g) => ({ from: sender, to: parent, gas: numberToHex(g) })) }] }, 'latest']),
  })

  // Frames with more than 2^53 gas: a node without the RPC gas cap, a block gas limit by override.
  const uncapped = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, rpcGasCap: 0, hardfork: 'prague' })
  try {
    const request = (method: string, params: unknown[]) => uncapped.request<LooseRpc>({ method, params })
    const huge = [big(53) - 1n, big(53), big(53) + 21_000n, big(60)]
    const calls = huge.flatMap((g) => [
      { from: sender, to: parent, gas: toHex(g) },
      { from: sender, to: addressOf(names.indexOf('sstore')), data: data([0n, 5n]), gas: toHex(g) },
      { from: sender, to: addressOf(names.indexOf('mstore')), data: data([big(26), 32n]), gas: toHex(g) },
    ])
    const blockStateCalls = [{ blockOverrides: { gasLimit: toHex(big(62)) }, stateOverrides: { ...stateOverrides, ...forwarding }, calls }]
    try {
      entries.push({ label: 'gas edges: frames above 2^53 gas', answer: { result: await request('eth_simulateV1', [{ blockStateCalls }, 'latest']) } })
    } catch (e) {
      const error = e as { code?: number; message?: string }
      entries.push({ label: 'gas edges: frames above 2^53 gas', answer: { error: { code: error.code, message: error.message } } })
    }
  } finally {
    await uncapped.close()
  }
}

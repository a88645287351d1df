/**
 * Random EVM programs for the differential suite: bytecode built from
 * stack-balanced snippets that cover every opcode family (arithmetic,
 * comparison and bits, KECCAK256, environment and block reads, memory,
 * storage with refunds, transient storage, logs, jumps and bounded loops,
 * CALL / CALLCODE / DELEGATECALL / STATICCALL into other programs and the
 * precompiles, CREATE / CREATE2 of child contracts, REVERT, INVALID,
 * SELFDESTRUCT), so that what a program does depends on its call data, its
 * balance, the block and the other programs. Each result is stored into a
 * storage slot, so the state root sees it.
 */
import type { seededRandom } from '../../evm/generators.js'

type Rng = ReturnType<typeof seededRandom>
type Item = number | { push: bigint; size?: number } | { label: string } | { pushLabel: string }

const op = {
  STOP: 0x00, ADD: 0x01, MUL: 0x02, SUB: 0x03, DIV: 0x04, SDIV: 0x05, MOD: 0x06, SMOD: 0x07, ADDMOD: 0x08, MULMOD: 0x09,
  EXP: 0x0a, SIGNEXTEND: 0x0b, LT: 0x10, GT: 0x11, SLT: 0x12, SGT: 0x13, EQ: 0x14, ISZERO: 0x15, AND: 0x16, OR: 0x17,
  XOR: 0x18, NOT: 0x19, BYTE: 0x1a, SHL: 0x1b, SHR: 0x1c, SAR: 0x1d, CLZ: 0x1e, KECCAK256: 0x20, ADDRESS: 0x30,
  BALANCE: 0x31, ORIGIN: 0x32, CALLER: 0x33, CALLVALUE: 0x34, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37, CODESIZE: 0x38, CODECOPY: 0x39, GASPRICE: 0x3a, EXTCODESIZE: 0x3b, EXTCODECOPY: 0x3c,
  RETURNDATASIZE: 0x3d, RETURNDATACOPY: 0x3e, EXTCODEHASH: 0x3f, BLOCKHASH: 0x40, COINBASE: 0x41, TIMESTAMP: 0x42,
  NUMBER: 0x43, PREVRANDAO: 0x44, GASLIMIT: 0x45, CHAINID: 0x46, SELFBALANCE: 0x47, BASEFEE: 0x48, BLOBHASH: 0x49,
  BLOBBASEFEE: 0x4a, POP: 0x50, MLOAD: 0x51, MSTORE: 0x52, MSTORE8: 0x53, SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56,
  JUMPI: 0x57, PC: 0x58, MSIZE: 0x59, GAS: 0x5a, JUMPDEST: 0x5b, TLOAD: 0x5c, TSTORE: 0x5d, MCOPY: 0x5e, PUSH0: 0x5f,
  DUP1: 0x80, DUP2: 0x81, SWAP1: 0x90, SWAP2: 0x91, LOG0: 0xa0, CREATE: 0xf0, CALL: 0xf1, CALLCODE: 0xf2,
  RETURN: 0xf3, DELEGATECALL: 0xf4, CREATE2: 0xf5, STATICCALL: 0xfa, REVERT: 0xfd, INVALID: 0xfe, SELFDESTRUCT: 0xff,
} as const

/** Bytecode from items: PUSHn of values (smallest size unless given), labels and PUSH2 of a label's offset. */
export function assemble(items: Item[]): Uint8Array {
  const sizeOf = (item: Item) =>
    typeof item === 'number' ? 1 : 'label' in item ? 1 : 'pushLabel' in item ? 3 : item.push === 0n && item.size === undefined ? 1 : 1 + pushSize(item)
  const labels = new Map<string, number>()
  let at = 0
  for (const item of items) {
    if (typeof item === 'object' && 'label' in item) labels.set(item.label, at)
    at += sizeOf(item)
  }
  const out: number[] = []
  for (const item of items) {
    if (typeof item === 'number') out.push(item)
    else if ('label' in item) out.push(op.JUMPDEST)
    else if ('pushLabel' in item) {
      const target = labels.get(item.pushLabel)!
      out.push(0x61, target >> 8, target & 0xff)
    } else if (item.push === 0n && item.size === undefined) out.push(op.PUSH0)
    else {
      const size = pushSize(item)
      out.push(0x5f + size)
      for (let i = size - 1; i >= 0; i--) out.push(Number((item.push >> BigInt(8 * i)) & 0xffn))
    }
  }
  return Uint8Array.from(out)
}

function pushSize(item: { push: bigint; size?: number }) {
  if (item.size !== undefined) return item.size
  let size = 1
  while (item.push >> BigInt(8 * size) !== 0n) size++
  return size
}

const push = (value: bigint | number, size?: number): Item => ({ push: BigInt(value), ...(size !== undefined ? { size } : {}) })
const max = (1n << 256n) - 1n

/** A word worth testing: edges, small numbers, random widths. */
function word(rng: Rng): bigint {
  switch (rng.int(8)) {
    case 0: return 0n
    case 1: return BigInt(rng.int(4))
    case 2: return max - BigInt(rng.int(3))
    case 3: return 1n << BigInt(rng.int(256))
    case 4: return (1n << 255n) + BigInt(rng.int(3))
    case 5: return BigInt(rng.int(300))
    default: {
      let w = 0n
      for (const b of rng.bytes(1 + rng.int(32))) w = (w << 8n) | BigInt(b)
      return w
    }
  }
}

/** What a program may reach: the other programs, precompiles, an EOA, an empty address. */
export type World = { contracts: `0x${string}`[]; eoa: `0x${string}`; precompiles: number[] }

/** A small contract a program creates: its init code stores the caller, and its runtime returns a word or self-destructs. */
function childInitCode(rng: Rng): Uint8Array {
  const runtime = rng.int(2) === 0
    ? assemble([push(rng.int(1000)), push(0), op.MSTORE, push(32), push(0), op.RETURN])
    : assemble([op.CALLER, op.SELFDESTRUCT])
  const body: Item[] = [op.CALLER, push(0), op.SSTORE]
  // A constructor that sometimes reverts, sometimes returns code starting with 0xEF (refused, EIP-3541).
  if (rng.int(8) === 0) body.push(push(0), push(0), op.REVERT)
  const code = rng.int(10) === 0 ? Uint8Array.of(0xef, ...runtime) : runtime
  // Fixed-size pushes: the header's length does not depend on the offset it holds.
  const header = (offset: number) => assemble([...body, push(code.length, 1), push(offset, 1), push(0, 1), op.CODECOPY, push(code.length, 1), push(0, 1), op.RETURN])
  return Uint8Array.from([...header(header(0).length), ...code])
}

/** Items that write `bytes` into memory at `offset` (32 bytes per MSTORE). */
function writeMemory(bytes: Uint8Array, offset: number): Item[] {
  const items: Item[] = []
  for (let i = 0; i < bytes.length; i += 32) {
    let w = 0n
    for (let j = 0; j < 32; j++) w = (w << 8n) | BigInt(bytes[i + j] ?? 0)
    items.push(push(w), push(offset + i), op.MSTORE)
  }
  return items
}

/** A random program of about `snippets` snippets. */
export function randomProgram(rng: Rng, world: World, snippets: number): Uint8Array {
  let slot = 0
  let labels = 0
  const store = (): Item[] => [push(rng.int(4) === 0 ? rng.int(4) : slot++ % 24), op.SSTORE]
  const target = (): bigint => {
    const pick = rng.int(10)
    if (pick < 5 && world.contracts.length > 0) return BigInt(world.contracts[rng.int(world.contracts.length)]!)
    if (pick < 8) return BigInt(world.precompiles[rng.int(world.precompiles.length)]!)
    if (pick < 9) return BigInt(world.eoa)
    return BigInt(0xdead0000 + rng.int(4))
  }
  const memOffset = () => BigInt(rng.int(4) === 0 ? rng.int(2048) : rng.int(256))
  const length = () => BigInt(rng.int(6) === 0 ? rng.int(300) : rng.int(64))

  const snippet = (depth: number): Item[] => {
    // Logs are drawn three times as often as the rest: a log only shows in a receipt when every frame above it succeeds.
    const kinds = depth > 0 ? 16 : 18
    const pick = rng.int(kinds + 2)
    switch (pick >= kinds ? 8 : pick) {
      case 0: { // binary arithmetic, comparison, bits
        const ops = [op.ADD, op.MUL, op.SUB, op.DIV, op.SDIV, op.MOD, op.SMOD, op.EXP, op.SIGNEXTEND, op.LT, op.GT, op.SLT, op.SGT, op.EQ, op.AND, op.OR, op.XOR, op.BYTE, op.SHL, op.SHR, op.SAR]
        const o = ops[rng.int(ops.length)]!
        const small = o === op.EXP || o === op.SIGNEXTEND || o === op.BYTE || o === op.SHL || o === op.SHR || o === op.SAR
        return [push(word(rng)), push(small && rng.int(2) === 0 ? rng.int(40) : word(rng)), o, ...store()]
      }
      case 1: // ternary and unary
        return rng.int(2) === 0
          ? [push(word(rng)), push(word(rng)), push(word(rng)), rng.int(2) === 0 ? op.ADDMOD : op.MULMOD, ...store()]
          : [push(word(rng)), [op.ISZERO, op.NOT][rng.int(2)]!, ...store()]
      case 2: { // environment and block reads without arguments
        const ops = [op.ADDRESS, op.ORIGIN, op.CALLER, op.CALLVALUE, op.CALLDATASIZE, op.CODESIZE, op.GASPRICE, op.RETURNDATASIZE, op.COINBASE, op.TIMESTAMP, op.NUMBER, op.PREVRANDAO, op.GASLIMIT, op.CHAINID, op.SELFBALANCE, op.BASEFEE, op.BLOBBASEFEE, op.MSIZE, op.GAS, op.PC]
        return [ops[rng.int(ops.length)]!, ...store()]
      }
      case 3: { // reads with one argument
        const choice = rng.int(7)
        if (choice === 0) return [push(target()), [op.BALANCE, op.EXTCODESIZE, op.EXTCODEHASH][rng.int(3)]!, ...store()]
        if (choice === 1) return [op.NUMBER, push(1 + rng.int(3)), op.SWAP1, op.SUB, op.BLOCKHASH, ...store()]
        if (choice === 2) return [push(rng.int(80)), op.CALLDATALOAD, ...store()]
        if (choice === 3) return [push(rng.int(2)), op.BLOBHASH, ...store()]
        if (choice === 4) return [push(rng.int(24)), op.SLOAD, ...store()]
        if (choice === 5) return [push(rng.int(4)), op.TLOAD, ...store()]
        return [push(memOffset()), op.MLOAD, ...store()]
      }
      case 4: { // memory writes and copies
        const choice = rng.int(7)
        if (choice === 0) return [push(word(rng)), push(memOffset()), op.MSTORE]
        if (choice === 1) return [push(word(rng)), push(memOffset()), op.MSTORE8]
        if (choice === 2) return [push(length()), push(memOffset()), push(memOffset()), op.MCOPY]
        if (choice === 3) return [push(length()), push(rng.int(100)), push(memOffset()), op.CALLDATACOPY]
        if (choice === 4) return [push(length()), push(rng.int(100)), push(memOffset()), op.CODECOPY]
        if (choice === 5) return [push(length()), push(rng.int(100)), push(memOffset()), push(target()), op.EXTCODECOPY]
        // RETURNDATACOPY: past the return data halts the frame (exceptional), as it must.
        return [push(rng.int(3) === 0 ? rng.int(40) : 0), push(0), push(memOffset()), op.RETURNDATACOPY]
      }
      case 5: // KECCAK256
        return [push(length()), push(memOffset()), op.KECCAK256, ...store()]
      case 6: // storage writes: values, zeros (refunds), rewrites
        return [push(rng.int(3) === 0 ? 0n : word(rng)), push(rng.int(24)), op.SSTORE]
      case 7: // transient storage
        return [push(word(rng)), push(rng.int(4)), op.TSTORE]
      case 8: { // LOG0..LOG4
        const topics = rng.int(5)
        return [...Array.from({ length: topics }, () => push(word(rng))), push(length()), push(memOffset()), op.LOG0 + topics]
      }
      case 9: case 10: { // calls
        const kind = [op.CALL, op.CALLCODE, op.DELEGATECALL, op.STATICCALL][rng.int(4)]!
        // All the gas left (GAS) only now and then: a callee that fails burns what it was given.
        const gas: Item[] = rng.int(10) === 0 ? [op.GAS] : [push(rng.int(80_000))]
        const value = kind === op.CALL || kind === op.CALLCODE ? [push(rng.int(3) === 0 ? rng.int(1000) : 0)] : []
        return [push(length()), push(memOffset()), push(length()), push(memOffset()), ...value, push(target()), ...gas, kind, ...store(), op.RETURNDATASIZE, ...store()]
      }
      case 11: { // CREATE / CREATE2 of a child, then a call into it
        const init = childInitCode(rng)
        const at = 4096
        const create2 = rng.int(2) === 0
        const value = rng.int(3) === 0 ? rng.int(100) : 0
        const made = slot++ % 24
        return [
          ...writeMemory(init, at),
          ...(create2 ? [push(rng.int(3))] : []),
          push(init.length), push(at), push(value), create2 ? op.CREATE2 : op.CREATE, push(made), op.SSTORE,
          push(32), push(0), push(0), push(0), push(0), push(made), op.SLOAD, push(60_000), op.CALL, ...store(),
        ]
      }
      case 12: { // a branch on the call data
        const skip = `l${labels++}`
        return [push(rng.int(64)), op.CALLDATALOAD, push(rng.int(8)), op.AND, { pushLabel: skip }, op.JUMPI, ...snippet(depth + 1), { label: skip }]
      }
      case 13: { // a bounded loop
        const top = `l${labels++}`
        return [push(1 + rng.int(4)), { label: top }, ...snippet(depth + 1), push(1), op.SWAP1, op.SUB, op.DUP1, { pushLabel: top }, op.JUMPI, op.POP]
      }
      case 14: // an unconditional jump over dead code
        {
          const over = `l${labels++}`
          return [{ pushLabel: over }, op.JUMP, op.INVALID, push(1), { label: over }]
        }
      case 15: // a precompile call with crafted input (ecrecover-shaped, identity, modexp-shaped)
        return [push(word(rng)), push(0), op.MSTORE, push(27 + rng.int(2)), push(32), op.MSTORE, push(word(rng)), push(64), op.MSTORE, push(word(rng)), push(96), op.MSTORE,
          push(32), push(128), push(128), push(0), push(world.precompiles[rng.int(world.precompiles.length)]!), push(rng.int(4) === 0 ? 3_000 : 150_000), op.STATICCALL, ...store(), push(128), op.MLOAD, ...store()]
      case 16: // a reverting branch on the call data's first byte
        {
          const ok = `l${labels++}`
          return [push(0), op.CALLDATALOAD, push(248), op.SHR, push(200), op.GT, { pushLabel: ok }, op.JUMPI, push(length()), push(memOffset()), op.REVERT, { label: ok }]
        }
      default: // CLZ (Osaka) or a no-op
        return rng.int(2) === 0 ? [push(word(rng)), op.CLZ, ...store()] : [op.PC, op.POP]
    }
  }

  const items: Item[] = []
  for (let i = 0; i < snippets; i++) items.push(...snippet(0))
  switch (rng.int(8)) {
    case 0: items.push(push(length()), push(memOffset()), op.REVERT); break
    case 1: items.push(op.INVALID); break
    case 2: items.push(push(BigInt(world.eoa)), op.SELFDESTRUCT); break
    case 3: items.push(op.STOP); break
    default: items.push(push(length()), push(memOffset()), op.RETURN)
  }
  return assemble(items)
}

/** Init code that deploys `runtime` (after storing a word, so constructors write state too). */
export function deployCode(runtime: Uint8Array, rng: Rng): Uint8Array {
  const value = word(rng) & 0xffffn
  const slot = rng.int(24)
  const header = (offset: number) =>
    assemble([push(value, 2), push(slot, 1), op.SSTORE, push(runtime.length, 2), push(offset, 2), push(0, 1), op.CODECOPY, push(runtime.length, 2), push(0, 1), op.RETURN])
  // Every push has a fixed size, so the header's length does not depend on the offset it holds.
  return Uint8Array.from([...header(header(0).length), ...runtime])
}

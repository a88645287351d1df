/**
 * A seeded generator of malformed JSON-RPC input. Every case says what a
 * correct node must answer (which error codes, whether a result is fine), so
 * the driver can judge each reply on its own. The same seed gives the same
 * cases, in the same order, on every machine: a failure printed with its seed
 * and index reproduces with `FUZZ_SEED=… FUZZ_CASES=…`.
 */

import { type Random, seededRandom } from '../evm/generators.js'

/** What a correct reply to one request looks like. */
export type Expect = {
  /** Error codes a correct node may answer with. */
  codes: readonly number[]
  /** Whether a result (success) is also correct. */
  result: boolean
}

/**
 * One case. `request` is a JSON value that may travel inside a batch (its id
 * is unique and valid, so its reply can be found by id); `frame` is a whole
 * HTTP body or WebSocket message, sent alone, whose reply (`single`: one
 * response with id null or the request's; `batch`: an array; `none`: nothing)
 * is judged as a whole.
 */
export type Case =
  | { index: number; label: string; kind: 'request'; request: { id: number | string } & Record<string, unknown>; expect: Expect }
  | {
      index: number
      label: string
      kind: 'frame'
      frame: string | Buffer
      reply: 'single' | 'batch' | 'none'
      /** The id the reply must carry (`null` when the request's id cannot be echoed). */
      id?: unknown
      expect: Expect
      /** A body over the transport's size limit: HTTP answers 413, WebSocket closes with 1009. */
      oversize?: boolean
    }

/** A method call the node may legitimately refuse with these codes (simulate's -380xx included). */
const methodCodes = [-32602, -32000, 3, -32601, -38010, -38011, -38012, -38013, -38014, -38020, -38021, -38022, -38023, -38024, -38025, -38026, -32015, -38015, -38016, -38017, -38018, -38019] as const
const parse = [-32700] as const
const invalid = [-32600] as const
const notFound = [-32601] as const

const hex = (random: Random, digits: number) => {
  let out = ''
  for (let i = 0; i < digits; i++) out += '0123456789abcdef'[random.int(16)]
  return out
}

/** 100 levels of arrays or objects around a value. */
export const nested = (depth: number, inner: unknown = 1, asObject = false): unknown => {
  let value = inner
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value]
  return value
}

/** Argument values: wrong types, odd hex, huge and negative numbers, prototype names, deep nesting. */
function argument(random: Random): unknown {
  const scalars: (() => unknown)[] = [
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1.5,
    () => Number.MAX_SAFE_INTEGER + 2,
    () => 1e300,
    () => -1e300,
    () => '',
    () => '0x',
    () => '0x0',
    () => '0x1',
    () => '-0x1',
    () => '0x-1',
    () => '0X10',
    () => '1234',
    () => `0x${hex(random, 1 + 2 * random.int(8))}`, // odd-length hex
    () => `0x0${hex(random, 3)}`, // leading zero
    () => `0x${'f'.repeat(64)}`, // 2^256 - 1
    () => `0x${'f'.repeat(65 + random.int(100))}`, // > 256 bits
    () => `0x${'f'.repeat(16)}`, // 2^64 - 1
    () => `0x1${'0'.repeat(16)}`, // 2^64
    () => `0x${hex(random, 38 + random.int(5) * (random.chance(0.5) ? 1 : 0))}`, // addresses of the wrong length
    () => `0x${hex(random, 40)}`,
    () => `0x${hex(random, 64)}`,
    () => `0x${hex(random, 62)}`,
    () => `0xzz${hex(random, 38)}`,
    () => 'latest',
    () => 'pending',
    () => 'earliest',
    () => 'safe',
    () => 'finalized',
    () => 'newHeads',
    () => 'logs',
    () => '__proto__',
    () => 'constructor',
    () => 'toString',
    () => 'hasOwnProperty',
    () => 'x'.repeat(10_000),
    () => '\u0000\uffff\ud800',
    () => '../../../../etc/passwd',
    () => '/etc/passwd',
  ]
  const objects: (() => unknown)[] = [
    () => ({}),
    () => [],
    () => JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'),
    () => ({ toString: 1, valueOf: 'x', hasOwnProperty: null }),
    () => ({ from: argument(random), to: argument(random), data: argument(random), value: argument(random), gas: argument(random) }),
    () => ({ blockHash: argument(random) }),
    () => ({ blockNumber: argument(random), requireCanonical: argument(random) }),
    () => ({ fromBlock: argument(random), toBlock: argument(random), address: argument(random), topics: argument(random) }),
    () => ({ blockStateCalls: argument(random), validation: argument(random), traceTransfers: argument(random) }),
    () => ({ blockStateCalls: [{ calls: [argument(random)], stateOverrides: argument(random), blockOverrides: argument(random) }] }),
    () => ({ accessList: argument(random), authorizationList: argument(random), blobVersionedHashes: argument(random) }),
    () => ({ [`0x${hex(random, 40)}`]: { balance: argument(random), code: argument(random), state: argument(random), stateDiff: argument(random) } }),
    () => ({ tracer: argument(random), tracerConfig: argument(random), timeout: argument(random) }),
    () => ({ verifyState: argument(random) }),
    () => [argument(random), argument(random)],
    () => nested(100, argument(random), random.chance(0.5)),
    () => Array.from({ length: 1000 }, () => `0x${hex(random, 40)}`),
  ]
  return random.chance(0.7) ? random.pick(scalars)() : random.pick(objects)()
}

const prototypeNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf']

/** Methods the generator must not call with arguments that could be valid: they change how the node runs, not what it answers. */
const nodeWide = new Set(['evm_setIntervalMining', 'anvil_setIntervalMining', 'anvil_mine', 'hardhat_mine'])

/** Makes case number `index`. `methods` are the served method names (from the registry). */
export function generateCase(random: Random, index: number, methods: readonly string[], bodyLimit: number): Case {
  const id = random.pick([() => index, () => `c${index}`, () => index + 0.5, () => -index - 1])()
  const request = (method: unknown, params?: unknown, extra: Record<string, unknown> = {}) => {
    const r: Record<string, unknown> & { id: number | string } = { jsonrpc: '2.0', id, method, ...extra }
    if (params !== undefined) r.params = params
    return r
  }
  const frame = (label: string, body: string | Buffer, reply: 'single' | 'batch' | 'none', expect: Expect, extra: { id?: unknown; oversize?: boolean } = {}): Case => ({
    index,
    label,
    kind: 'frame',
    frame: body,
    reply,
    expect,
    ...extra,
  })
  const call = (label: string, r: Case & { kind: 'request' } extends { request: infer R } ? R : never, expect: Expect): Case => ({
    index,
    label,
    kind: 'request',
    request: r,
    expect,
  })

  // Per mille, so the costly whole-body cases (big batches, bodies past the limit) stay a few dozen per 10,000.
  const roll = random.int(1000)
  // Most cases call a served method with wrong arguments: that is where the decoders are.
  if (roll < 580) {
    const method = random.pick(methods)
    const shape = random.int(10)
    let params: unknown
    if (shape === 0) params = argument(random) // not an array
    else if (shape === 1) params = Array.from({ length: 6 + random.int(20) }, () => argument(random)) // too many
    else params = Array.from({ length: random.int(5) }, () => argument(random))
    if (nodeWide.has(method) && Array.isArray(params) && params.length > 0) params = [[params[0]]]
    return call(`${method} with wrong arguments`, request(method, params), { codes: methodCodes, result: true })
  }
  if (roll < 650) {
    const method = random.chance(0.5) ? random.pick(prototypeNames) : `${random.pick(['eth_', 'debug_', 'anvil_', 'x_', ''])}${random.pick(prototypeNames.concat(['foo', 'nonexistent', '']))}`
    return call('unknown method', request(method, []), { codes: notFound, result: false })
  }
  if (roll < 740) {
    const variant = random.int(6)
    const method = random.pick(['eth_blockNumber', 'eth_chainId', random.pick(methods)])
    if (variant === 0) return call('wrong jsonrpc', { ...request(method, []), jsonrpc: random.pick(['1.0', '2', 2, null, '', '2.0 ']) }, { codes: invalid, result: false })
    if (variant === 1) {
      const { jsonrpc: _, ...rest } = request(method, [])
      return call('no jsonrpc', rest as typeof rest & { id: number }, { codes: invalid, result: false })
    }
    if (variant === 2) return call('method not a string', request(random.pick([1, null, true, {}, [], ['eth_blockNumber']]), []), { codes: invalid, result: false })
    if (variant === 3) {
      const { method: _, ...rest } = request(method, [])
      return call('no method', rest as typeof rest & { id: number }, { codes: invalid, result: false })
    }
    if (variant === 4) return call('params not an array', request('eth_blockNumber', random.pick([{}, 'x', 1, true])), { codes: [-32602], result: false })
    return call('extra members', request('eth_blockNumber', [], { extra: 1, result: 2, error: 3 }), { codes: [], result: true })
  }
  if (roll < 800) {
    // Ids a server cannot echo: objects, arrays, booleans. Their reply carries id null.
    const badId = random.pick([{}, { a: 1 }, [], [1], true, false, nested(100)])
    const body = JSON.stringify({ jsonrpc: '2.0', id: badId, method: 'eth_blockNumber', params: [] })
    return frame('id of the wrong type', body, 'single', { codes: invalid, result: false }, { id: null })
  }
  if (roll < 830) {
    // Numbers JSON allows but JavaScript rounds or overflows.
    const text = random.pick(['1e400', '-1e400', '123456789012345678901234567890', '1.000000000000000000001', '-0', '1E2', '0.1e-400'])
    const echo = JSON.parse(text) as number
    const body = `{"jsonrpc":"2.0","id":${text},"method":"eth_blockNumber","params":[]}`
    return Number.isFinite(echo)
      ? frame('huge or odd numeric id', body, 'single', { codes: [], result: true }, { id: echo })
      : frame('id out of float range', body, 'single', { codes: invalid, result: false }, { id: null })
  }
  if (roll < 900) {
    const good = JSON.stringify(request('eth_blockNumber', []))
    const broken = random.pick([
      () => good.slice(0, 1 + random.int(good.length - 1)),
      () => `${good}}`,
      () => good.replace(':', ''),
      () => '',
      () => ' ',
      () => 'null',
      () => 'nul',
      () => "{'jsonrpc':'2.0'}",
      () => '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber",}',
      () => '[',
      () => ']',
      () => '{"a":1 "b":2}',
      () => `${'['.repeat(100)}${']'.repeat(99)}`,
      () => `${'['.repeat(100_000)}`,
      () => 'NaN',
      () => '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[0x1]}',
    ])()
    // Valid JSON that is not an object or an array of them: -32600, as geth.
    if (broken === 'null') return frame('null body', broken, 'single', { codes: invalid, result: false }, { id: null })
    return frame('invalid JSON', broken, 'single', { codes: parse, result: false }, { id: null })
  }
  if (roll < 930) {
    // Bytes that are not UTF-8: outside a string they break the JSON; inside one they become U+FFFD.
    const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x82, 0xf0, 0x28, 0x8c, 0xbc].slice(0, 1 + random.int(12)))
    if (random.chance(0.5)) return frame('non-UTF-8 outside strings', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,'), bad, Buffer.from('}')]), 'single', { codes: parse, result: false }, { id: null })
    return frame('non-UTF-8 in the method name', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":7,"method":"eth_'), bad, Buffer.from('","params":[]}')]), 'single', { codes: notFound, result: false }, { id: 7 })
  }
  if (roll < 960) {
    const items = random.pick([
      () => [] as unknown[],
      () => [1, 2, 3],
      () => [null],
      () => ['x'],
      () => [[]],
      () => [request('eth_blockNumber', [])],
    ])()
    if (items.length === 0) return frame('empty batch', '[]', 'single', { codes: invalid, result: false }, { id: null })
    return frame('batch of odd items', JSON.stringify(items), 'batch', { codes: invalid, result: true })
  }
  if (roll < 965) {
    // Past the batch limit: one -32600 "batch too large", as geth.
    const size = random.pick([1001, 5000, 10_000])
    const body = JSON.stringify(Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })))
    return frame(`batch of ${size}`, body, 'batch', { codes: invalid, result: false })
  }
  if (roll < 968) {
    const size = random.pick([999, 1000])
    const body = JSON.stringify(Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })))
    return frame(`batch of ${size} (at the limit)`, body, 'batch', { codes: [], result: true })
  }
  if (roll < 988) {
    const body = JSON.stringify(request(random.pick(methods), [nested(100, argument(random), random.chance(0.5))]))
    return frame('100-deep params', body, 'single', { codes: methodCodes, result: true }, { id })
  }
  if (roll < 995) {
    // Notifications: run, never answered. Mixed into a batch with one call, only the call is answered.
    const body = JSON.stringify({ jsonrpc: '2.0', method: random.pick(['eth_blockNumber', 'no_such_method', '__proto__']), params: [] })
    return frame('notification', body, 'none', { codes: [], result: false })
  }
  if (roll < 998) {
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":["${'a'.repeat(bodyLimit + random.int(1024))}"]}`
    return frame('body over the limit', body, 'single', { codes: invalid, result: false }, { id: null, oversize: true })
  }
  const body = JSON.stringify(request('eth_getBalance', [`0x${hex(random, 40)}`, 'latest'], { padding: 'p'.repeat(bodyLimit >> 1) }))
  return frame('large body under the limit', body, 'single', { codes: [], result: true }, { id })
}

/** `count` cases from `seed`, numbered from 0. */
export function generateCases(seed: number, count: number, methods: readonly string[], bodyLimit: number): Case[] {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, index) => generateCase(random, index, methods, bodyLimit))
}

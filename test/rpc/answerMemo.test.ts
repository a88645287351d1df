import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import { type Dispatcher, createDispatcher } from '../../src/rpc/dispatch.js'
import { allMethods } from '../../src/rpc/registry.js'
import { splitRequest } from '../../src/rpc/requestText.js'

// The dispatcher's memo of state reads (src/rpc/answerMemo.ts): a repeat is answered from it, byte for byte as the
// handler answers, and every change of the state it read (seal, cheat, pre-confirmation, revert) is seen at once.
let devnet: Devnet
let dispatcher: Dispatcher
let a0: string
let a1: string
beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  dispatcher = createDispatcher(devnet.node, allMethods, { debug: false })
  a0 = devnet.accounts[0]!.address
  a1 = devnet.accounts[1]!.address
})
afterAll(() => devnet?.close())

let nextId = 0
const body = (method: string, params: unknown[], id: unknown = ++nextId) => JSON.stringify({ jsonrpc: '2.0', id, method, params })
/** The text path (memo included), as the HTTP transport asks. */
const viaText = async (method: string, params: unknown[], id?: unknown) => dispatcher.respondText(body(method, params, id))
/** The answer the handler gives, without the memo: the parsed path. */
const viaHandler = async (method: string, params: unknown[], id?: unknown) => dispatcher.respond(JSON.parse(body(method, params, id)))
const request = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never)

/** Asks each read three times (the third is the memo's) and checks every answer against the handler's. */
async function same(reads: [string, unknown[]][]) {
  const answers: string[] = []
  for (const [method, params] of reads)
    for (let i = 0; i < 3; i++) {
      const id = `r${i}`
      const text = await viaText(method, params, id)
      expect(text).toBe(await viaHandler(method, params, id))
      answers.push(text!)
    }
  return answers
}

// balanceOf(a1) on the payment token: as is, with an unknown selector (a revert, never kept), with a state override.
const balanceOf = () => ({ to: devnet.config.token.address, data: `0x70a08231${a1.slice(2).toLowerCase().padStart(64, '0')}` })
const reads = (): [string, unknown[]][] => [
  ['eth_call', [balanceOf(), 'latest']],
  ['eth_call', [balanceOf(), 'pending']],
  ['eth_call', [{ ...balanceOf(), data: '0x12345678' }, 'latest']],
  ['eth_call', [balanceOf(), 'latest', { [a0]: { balance: '0x1' } }]],
  ['eth_getBalance', [a1, 'latest']],
  ['eth_getBalance', [a1]],
  ['eth_getBalance', [a1, 'pending']],
  ['eth_getTransactionCount', [a0, 'latest']],
  ['eth_getTransactionCount', [a0, 'pending']],
  ['eth_getCode', [a1, 'latest']],
  ['eth_getStorageAt', [a1, '0x0', 'pending']],
]

describe('answer memo', () => {
  test('default: a repeated read is answered from the memo, byte for byte as the handler, at once', async () => {
    await same(reads())
    const text = body('eth_getBalance', [a1, 'latest'], 42)
    // Kept from the second success on: by now the answer is there, with no promise to wait for.
    const answer = dispatcher.respondText(text)
    expect(typeof answer).toBe('string')
    expect(JSON.parse(answer as string)).toEqual({ jsonrpc: '2.0', id: 42, result: '0x21e19e0c9bab2400000' })
  })

  test('behavior: cheats, pre-confirmations, seals and reverts are seen at once', async () => {
    await same(reads())
    const balance = async (tag: string) => JSON.parse((await viaText('eth_getBalance', [a1, tag]))!).result
    const nonce = async (tag: string) => JSON.parse((await viaText('eth_getTransactionCount', [a0, tag]))!).result
    const snapshot = await request('evm_snapshot')

    await request('anvil_setBalance', [a1, '0x1234'])
    expect([await balance('latest'), await balance('pending')]).toEqual(['0x1234', '0x1234'])
    await same(reads())
    await request('devnet_setTokenBalance', [a1, '0x5f5e100'])
    expect(BigInt(JSON.parse((await viaText('eth_call', [balanceOf(), 'latest']))!).result)).toBe(100_000_000n)
    await same(reads())

    // A send: the pending nonce counts it at once (the pool), pending balances after the pre-confirmation.
    await request('eth_sendTransaction', [{ from: a0, to: a1, value: '0x10', gas: '0x5208' }])
    expect([await nonce('latest'), await nonce('pending')]).toEqual(['0x0', '0x1'])
    await request('devnet_preconfirm')
    expect([await balance('latest'), await balance('pending')]).toEqual(['0x1234', '0x1244'])
    await same(reads())

    await request('devnet_seal')
    expect([await balance('latest'), await nonce('latest')]).toEqual(['0x1244', '0x1'])
    await same(reads())

    await request('evm_revert', [snapshot])
    expect([await balance('latest'), await balance('pending'), await nonce('pending')]).toEqual(['0x21e19e0c9bab2400000', '0x21e19e0c9bab2400000', '0x0'])
    await same(reads())
  })

  test('error: bad params, other block ids and other spellings answer as the handler does', async () => {
    const cases: [string, unknown[]][] = [
      ['eth_getBalance', ['0x12', 'latest']],
      ['eth_getBalance', [a1, 'latest', 'extra']],
      ['eth_getBalance', [a1, '0x0']],
      ['eth_getBalance', [a1, 'earliest']],
      ['eth_getStorageAt', [a1, 'latest']],
      ['eth_getCode', []],
    ]
    for (const [method, params] of cases)
      for (let i = 0; i < 3; i++) expect(await viaText(method, params, 1)).toBe(await viaHandler(method, params, 1))
    const errors = await Promise.all(cases.slice(0, 2).map(async ([m, p]) => JSON.parse((await viaText(m, p))!).error.code))
    expect(errors).toEqual([-32602, -32602])
    // Whitespace, another key order, an id spelled otherwise: the parsed path, same answers.
    for (const text of [
      `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${a1}", "latest"]}`,
      `{"id":1,"jsonrpc":"2.0","method":"eth_getBalance","params":["${a1}","latest"]}`,
      `{"jsonrpc":"2.0","id":1.0,"method":"eth_getBalance","params":["${a1}","latest"]}`,
      `{"jsonrpc":"2.0","id":"\\u0061","method":"eth_getBalance","params":["${a1}","latest"]}`,
    ])
      for (let i = 0; i < 3; i++) expect(await dispatcher.respondText(text)).toBe(await dispatcher.respond(JSON.parse(text)))
    expect(await dispatcher.respondText('{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["x",]}')).toMatch(/"code":-32700/)
    expect(await dispatcher.respondText('{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["x"],"x":}')).toMatch(/"code":-32700/)
  })
})

describe('splitRequest', () => {
  const params = '["0xab","latest"]'
  test('takes the body JSON.stringify writes, and only when the id comes back as written', () => {
    for (const id of [0, 7, 123456789012345, 'abc', 'é✓ x', null]) {
      const text = JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: ['0xab', 'latest'] })
      expect(splitRequest(text)).toEqual({ id: JSON.stringify(id), method: 'eth_getBalance', params })
    }
  })
  test.each([
    ['a leading zero', '{"jsonrpc":"2.0","id":01,"method":"m","params":[]}'],
    ['a negative id', '{"jsonrpc":"2.0","id":-1,"method":"m","params":[]}'],
    ['a fraction', '{"jsonrpc":"2.0","id":1.5,"method":"m","params":[]}'],
    ['an exponent', '{"jsonrpc":"2.0","id":1e3,"method":"m","params":[]}'],
    ['16 digits', '{"jsonrpc":"2.0","id":1234567890123456,"method":"m","params":[]}'],
    ['an escape', '{"jsonrpc":"2.0","id":"a\\"b","method":"m","params":[]}'],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"m","params":[]}'],
    ['another key order', '{"id":1,"jsonrpc":"2.0","method":"m","params":[]}'],
    ['whitespace', '{"jsonrpc":"2.0", "id":1,"method":"m","params":[]}'],
    ['a method with a quote', '{"jsonrpc":"2.0","id":1,"method":"m\\"","params":[]}'],
    ['an empty method', '{"jsonrpc":"2.0","id":1,"method":"","params":[]}'],
    ['no params', '{"jsonrpc":"2.0","id":1,"method":"m"}'],
    ['trailing bytes', '{"jsonrpc":"2.0","id":1,"method":"m","params":[]} '],
  ])('leaves to JSON.parse: %s', (_, text) => {
    expect(splitRequest(text)).toBeUndefined()
  })
})

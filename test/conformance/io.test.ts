import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { corpusRoot } from './replay.js'
import { compareResponse, formatMismatches, type JsonSchema, parseIo, resultSchemaOf, validateSchema } from './io.js'

// Recorded cases from execution-apis (CC0), inlined so these tests run without the corpus.
const getBalance = `// retrieves an account balance with the block parameter omitted, which defaults to latest
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x76"}
`
const invalidKey = `// requests an invalid storage key
>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0xaa00000000000000000000000000000000000000","0xasdf","latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid hex in storage key: \\"0xasdf\\""}}
`
const revert = `// calls a contract that reverts with an ABI-encoded Error(string) value
>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930","input":"0x01"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: user error","data":"0x08c379a0"}}
`
const speconly = `// checks that including an EIP-7720 authorization in the message increases gas
// speconly: client response is only checked for schema validity.
>> {"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"to":"0x0100000000000000000000000000000000000000","value":"0x1"}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x5208"}
>> {"jsonrpc":"2.0","id":2,"method":"eth_estimateGas","params":[{"to":"0x0100000000000000000000000000000000000000"}]}
<< {"jsonrpc":"2.0","id":2,"result":"0xb52e"}
`

describe('parseIo', () => {
  test('default', () => {
    const parsed = parseIo(getBalance, 'eth_getBalance/get-balance-latest.io')
    expect(parsed.speconly).toBe(false)
    expect(parsed.comment).toBe('retrieves an account balance with the block parameter omitted, which defaults to latest')
    expect(parsed.exchanges).toHaveLength(1)
    expect(parsed.exchanges[0]!.line).toBe(2)
    expect(parsed.exchanges[0]!.response).toEqual({ jsonrpc: '2.0', id: 1, result: '0x76' })
  })

  test('behavior: speconly marker, several exchanges', () => {
    const parsed = parseIo(speconly, 'eth_estimateGas/estimate-with-eip7702.io')
    expect(parsed.speconly).toBe(true)
    expect(parsed.exchanges.map(({ line }) => line)).toEqual([3, 5])
  })

  test('error: malformed files name file and line', () => {
    expect(() => parseIo('>> {"id":1}\n>> {"id":2}\n', 'a.io')).toThrow('a.io:2: request follows a request')
    expect(() => parseIo('<< {}\n', 'a.io')).toThrow('a.io:1: response without a request')
    expect(() => parseIo('>> {"id":\n', 'a.io')).toThrow('a.io:1: invalid JSON')
    expect(() => parseIo('>> {"id":1}\n', 'a.io')).toThrow('a.io:1: request without a recorded response')
    expect(() => parseIo('hello\n', 'a.io')).toThrow('a.io:1: not a comment')
  })
})

describe('compareResponse', () => {
  const recorded = (text: string) => parseIo(text, 'case.io').exchanges[0]!.response

  test('default: equal responses pass', () => {
    expect(compareResponse({ jsonrpc: '2.0', id: 1, result: '0x76' }, recorded(getBalance))).toEqual([])
  })

  test('error: extra field', () => {
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, result: '0x76', extra: true }, recorded(getBalance))
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(`"  extra: unexpected field, got true"`)
  })

  test('error: missing field', () => {
    const mismatches = compareResponse({ jsonrpc: '2.0', result: '0x76' }, recorded(getBalance))
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(`"  id: missing, want 1"`)
  })

  test('error: non-canonical quantity', () => {
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, result: '0x076' }, recorded(getBalance))
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(
      `"  result: got "0x076", want "0x76" (same number, non-canonical hex)"`,
    )
  })

  test('behavior: error vs error ignores the message, not the code', () => {
    const want = recorded(invalidKey)
    expect(
      compareResponse({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad storage key' } }, want),
    ).toEqual([])
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }, want)
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(`"  error.code: got -32000, want -32602"`)
  })

  test('behavior: error vs error still compares data', () => {
    const want = recorded(revert)
    expect(compareResponse({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'reverted', data: '0x08c379a0' } }, want)).toEqual([])
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'reverted' } }, want)
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(`"  error.data: missing, want "0x08c379a0""`)
  })

  test('behavior: a missing message is not redacted', () => {
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, error: { code: -32602 } }, recorded(invalidKey))
    expect(mismatches.map(({ path }) => path)).toEqual(['error.message'])
  })

  test('behavior: nested call errors (eth_simulateV1) ignore messages', () => {
    const want = { jsonrpc: '2.0', id: 1, result: [{ calls: [{ status: '0x0', error: { code: -32015, message: 'out of gas' } }] }] }
    const got = { jsonrpc: '2.0', id: 1, result: [{ calls: [{ status: '0x0', error: { code: -32015, message: 'oog' } }] }] }
    expect(compareResponse(got, want)).toEqual([])
    const other = { jsonrpc: '2.0', id: 1, result: [{ calls: [{ status: '0x0', error: { code: 3, message: 'oog' } }] }] }
    expect(formatMismatches(compareResponse(other, want))).toMatchInlineSnapshot(
      `"  result[0].calls[0].error.code: got 3, want -32015"`,
    )
  })

  test('behavior: result vs error', () => {
    const mismatches = compareResponse({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }, recorded(getBalance))
    expect(formatMismatches(mismatches)).toMatchInlineSnapshot(`
      "  result: missing, want "0x76"
        error: unexpected field, got {"code":-32000,"message":"x"}"
    `)
  })

  test('behavior: speconly checks the schema, not the value', () => {
    const schema: JsonSchema = { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' }
    const want = recorded(speconly)
    const options = { resultSchema: { schema, spec: {} } }
    expect(compareResponse({ jsonrpc: '2.0', id: 1, result: '0x5300' }, want, options)).toEqual([])
    expect(formatMismatches(compareResponse({ jsonrpc: '2.0', id: 1, result: '0x05' }, want, options))).toMatchInlineSnapshot(
      `"  result: schema: "0x05" does not match /^0x(0|[1-9a-f][0-9a-f]*)$/"`,
    )
    expect(formatMismatches(compareResponse({ jsonrpc: '2.0', id: 7, result: '0x5' }, want, options))).toMatchInlineSnapshot(
      `"  id: got 7, want 1"`,
    )
    // an error response is compared in full, as any other
    expect(compareResponse({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'x' } }, want, options)).not.toEqual([])
  })
})

describe('validateSchema', () => {
  const block: JsonSchema = {
    type: 'object',
    required: ['number'],
    additionalProperties: false,
    properties: {
      number: { $ref: '#/components/schemas/uint' },
      txs: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', properties: { hash: { type: 'string' } } }] } },
      kind: { enum: ['a', 'b'] },
    },
  }
  const root = { components: { schemas: { uint: { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' } } } }

  test('default', () => {
    expect(validateSchema({ number: '0x1', txs: ['0x', { hash: '0x' }], kind: 'a' }, block, root)).toEqual([])
  })

  test('error: each keyword', () => {
    expect(validateSchema({ txs: [1], kind: 'c', more: 1 }, block, root)).toMatchInlineSnapshot(`
      [
        {
          "message": "required field missing",
          "path": "number",
        },
        {
          "message": "matches none of the 2 oneOf branches; closest fails with:",
          "path": "txs[0]",
        },
        {
          "message": "  expected string, got 1",
          "path": "txs[0]",
        },
        {
          "message": ""c" is not one of ["a","b"]",
          "path": "kind",
        },
        {
          "message": "field not allowed by the schema",
          "path": "more",
        },
      ]
    `)
    expect(validateSchema({ number: '0x01' }, block, root)).toEqual([
      { path: 'number', message: '"0x01" does not match /^0x(0|[1-9a-f][0-9a-f]*)$/' },
    ])
  })

  const specPath = join(corpusRoot, 'spec', 'openrpc.json')
  test.skipIf(!existsSync(specPath))('behavior: recorded results fit the assembled spec', () => {
    const spec: unknown = JSON.parse(readFileSync(specPath, 'utf8'))
    const schema = resultSchemaOf(spec, 'eth_getBalance')
    expect(schema).not.toBeNull()
    expect(validateSchema('0x76', schema!, spec)).toEqual([])
    expect(validateSchema('0x076', schema!, spec)).not.toEqual([])
    expect(resultSchemaOf(spec, 'eth_noSuchMethod')).toBeNull()
  })
})

/**
 * The `.io` format of the execution-apis test suite, and the comparison rules the
 * public harness (hive rpc-compat) applies to it.
 *
 * A file is a header of `//` comment lines, then `>>` request / `<<` response
 * lines, one JSON document each. A header line starting with `speconly:` marks a
 * case whose responses are checked against the OpenRPC result schema only.
 */

/** One request and the response recorded for it. */
export type IoExchange = {
  request: unknown
  response: unknown
  /** 1-based line of the request in the file, for messages. */
  line: number
}

/** A parsed `.io` file. */
export type IoCase = {
  /** Path relative to the suite root, e.g. `eth_getBalance/get-balance.io`. */
  name: string
  /** The header comment, without the `//` markers. */
  comment: string
  speconly: boolean
  exchanges: IoExchange[]
}

/**
 * Parses an `.io` file.
 *
 * @throws Error naming the file and line of malformed input (bad JSON, a response
 *   without a request, two requests in a row, a trailing request).
 */
export function parseIo(text: string, name: string): IoCase {
  const comment: string[] = []
  const exchanges: IoExchange[] = []
  let speconly = false
  let inHeader = true
  let pending: { request: unknown; line: number } | undefined
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    const where = `${name}:${i + 1}`
    if (line === '') continue
    if (line.startsWith('//')) {
      // as the harness: comments after the first exchange are not part of the header
      if (!inHeader) continue
      const text = line.slice(2).replace(/^ /, '')
      comment.push(text)
      if (text.startsWith('speconly:')) speconly = true
      continue
    }
    if (!line.startsWith('>>') && !line.startsWith('<<')) throw new Error(`${where}: not a comment, request or response line`)
    inHeader = false
    let data: unknown
    try {
      data = JSON.parse(line.slice(2))
    } catch (error) {
      throw new Error(`${where}: invalid JSON: ${(error as Error).message}`)
    }
    if (line.startsWith('>>')) {
      if (pending !== undefined) throw new Error(`${where}: request follows a request without response`)
      pending = { request: data, line: i + 1 }
    } else {
      if (pending === undefined) throw new Error(`${where}: response without a request`)
      exchanges.push({ ...pending, response: data })
      pending = undefined
    }
  }
  if (pending !== undefined) throw new Error(`${name}:${pending.line}: request without a recorded response`)
  if (exchanges.length === 0) throw new Error(`${name}: no exchanges`)
  return { name, comment: comment.join('\n'), speconly, exchanges }
}

/** One difference between a response and the recorded one. */
export type Mismatch = {
  /** Where, as a JS-like path from the response root: `result.transactions[0].hash`. */
  path: string
  message: string
}

/** Options of {@link compareResponse}. */
export type CompareOptions = {
  /**
   * For `speconly` cases: the method's result schema. A non-error response is then
   * checked against it (plus `jsonrpc` and `id`) instead of the recorded value.
   * `null` means the spec has no schema for the method, which fails such a response.
   */
  resultSchema?: { schema: JsonSchema | null; spec: unknown } | undefined
}

/**
 * Compares a JSON-RPC response with the recorded one, by the harness's rules:
 * a full deep match (no extra or missing fields, strings equal byte for byte, so
 * quantities must be canonical); where both sides carry an `error` object with a
 * `message`, at any depth (e.g. `eth_simulateV1` call results), the messages are
 * left out and `code`/`data` still compared.
 *
 * @returns The mismatches, in document order; empty when the response passes.
 */
export function compareResponse(got: unknown, want: unknown, options: CompareOptions = {}): Mismatch[] {
  const { resultSchema } = options
  if (resultSchema !== undefined && isObject(got) && !('error' in got)) {
    const mismatches: Mismatch[] = []
    for (const key of Object.keys(got))
      if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') mismatches.push({ path: key, message: 'unexpected field' })
    const envelope = isObject(want) ? { jsonrpc: want.jsonrpc, id: want.id } : {}
    diff({ jsonrpc: got.jsonrpc, id: got.id }, envelope, '', mismatches)
    if (!('result' in got)) mismatches.push({ path: 'result', message: 'missing (neither result nor error)' })
    else if (resultSchema.schema === null) mismatches.push({ path: 'result', message: 'the spec has no result schema for this method' })
    else
      for (const error of validateSchema(got.result, resultSchema.schema, resultSchema.spec))
        mismatches.push({ path: joinPath('result', error.path), message: `schema: ${error.message}` })
    return mismatches
  }
  const [g, w] = redactErrorMessages(got, want)
  const mismatches: Mismatch[] = []
  diff(g, w, '', mismatches)
  return mismatches
}

/**
 * Copies of both values with `error.message` removed wherever both sides have an
 * error object with a message at the same place (the harness's redaction).
 */
export function redactErrorMessages(got: unknown, want: unknown): [unknown, unknown] {
  if (Array.isArray(got) && Array.isArray(want)) {
    const g = [...got]
    const w = [...want]
    for (let i = 0; i < Math.min(g.length, w.length); i++) [g[i], w[i]] = redactErrorMessages(g[i], w[i])
    return [g, w]
  }
  if (!isObject(got) || !isObject(want)) return [got, want]
  const g: Record<string, unknown> = { ...got }
  const w: Record<string, unknown> = { ...want }
  for (const key of Object.keys(g)) {
    if (!(key in w)) continue
    let [gv, wv] = [g[key], w[key]]
    if (key === 'error' && isObject(gv) && isObject(wv) && 'message' in gv && 'message' in wv) {
      const { message: _g, ...gRest } = gv
      const { message: _w, ...wRest } = wv
      ;[gv, wv] = [gRest, wRest]
    }
    ;[g[key], w[key]] = redactErrorMessages(gv, wv)
  }
  return [g, w]
}

function diff(got: unknown, want: unknown, path: string, out: Mismatch[]): void {
  if (Array.isArray(want) && Array.isArray(got)) {
    if (got.length !== want.length)
      out.push({ path: path || '(root)', message: `array length ${got.length}, want ${want.length}` })
    for (let i = 0; i < Math.min(got.length, want.length); i++) diff(got[i], want[i], `${path}[${i}]`, out)
    return
  }
  if (isObject(want) && isObject(got)) {
    for (const key of Object.keys(want))
      if (!(key in got)) out.push({ path: joinPath(path, key), message: `missing, want ${show(want[key])}` })
    for (const key of Object.keys(got))
      if (!(key in want)) out.push({ path: joinPath(path, key), message: `unexpected field, got ${show(got[key])}` })
      else diff(got[key], want[key], joinPath(path, key), out)
    return
  }
  if (Object.is(got, want)) return
  let message = `got ${show(got)}, want ${show(want)}`
  if (typeof got === 'string' && typeof want === 'string' && isQuantity(want) && /^0x[0-9a-fA-F]+$/.test(got) && got.length <= 66)
    if (BigInt(got) === BigInt(want)) message += ' (same number, non-canonical hex)'
  out.push({ path: path || '(root)', message })
}

/**
 * Renders the first mismatches for a failure message.
 *
 * @example
 * ```
 * result.baseFeePerGas: got "0x07", want "0x7" (same number, non-canonical hex)
 * ```
 */
export function formatMismatches(mismatches: readonly Mismatch[], limit = 8): string {
  const lines = mismatches.slice(0, limit).map(({ path, message }) => `  ${path}: ${message}`)
  if (mismatches.length > limit) lines.push(`  … and ${mismatches.length - limit} more`)
  return lines.join('\n')
}

function joinPath(base: string, key: string): string {
  if (key === '') return base
  if (key.startsWith('[')) return `${base}${key}`
  return base === '' ? key : `${base}.${key}`
}

function isQuantity(value: string): boolean {
  return /^0x(0|[1-9a-f][0-9a-f]*)$/.test(value)
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 160 ? `${text.slice(0, 120)}…(${text.length} chars)` : text
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// ---------------------------------------------------------------------------
// A JSON-schema validator for the subset spec/openrpc.json uses. Written here
// rather than pulled in: the subset is small and the harness semantics simple.

/** A JSON schema (draft 2019-09 subset: the keywords the execution-apis spec uses). */
export type JsonSchema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  patternProperties?: Record<string, JsonSchema>
  additionalProperties?: boolean | JsonSchema
  required?: string[]
  items?: JsonSchema | JsonSchema[]
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  allOf?: JsonSchema[]
  not?: JsonSchema
  enum?: unknown[]
  const?: unknown
  pattern?: string
  minimum?: number
  maximum?: number
  [keyword: string]: unknown
}

/** A schema violation: where (relative to the validated value) and what. */
export type SchemaError = { path: string; message: string }

/**
 * The result schema of `method` in an OpenRPC document, or `null` when the
 * method or its result schema is absent.
 */
export function resultSchemaOf(spec: unknown, method: string): JsonSchema | null {
  if (!isObject(spec) || !Array.isArray(spec.methods)) return null
  const entry = spec.methods.find((m): m is Record<string, unknown> => isObject(m) && m.name === method)
  const result = entry?.result
  if (!isObject(result) || !isObject(result.schema)) return null
  return result.schema as JsonSchema
}

/**
 * Validates `value` against `schema`. `root` is the document `$ref`s point into
 * (`#/components/schemas/…`).
 *
 * @returns The violations; empty when the value is valid.
 */
export function validateSchema(value: unknown, schema: JsonSchema, root: unknown = {}): SchemaError[] {
  const errors: SchemaError[] = []
  validate(value, schema, root, '', errors)
  return errors
}

function validate(value: unknown, schema: JsonSchema | boolean, root: unknown, path: string, out: SchemaError[]): void {
  if (schema === true) return
  if (schema === false) {
    out.push({ path, message: 'no value allowed here' })
    return
  }
  if (schema.$ref !== undefined) {
    validate(value, resolveRef(schema.$ref, root), root, path, out)
    // draft 2019-09: siblings of $ref apply too
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.some((type) => hasType(value, type))) {
      out.push({ path, message: `expected ${types.join(' or ')}, got ${show(value)}` })
      return
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((option) => deepEqual(option, value)))
    out.push({ path, message: `${show(value)} is not one of ${show(schema.enum)}` })
  if ('const' in schema && !deepEqual(schema.const, value))
    out.push({ path, message: `expected ${show(schema.const)}, got ${show(value)}` })
  if (typeof value === 'string' && schema.pattern !== undefined && !regex(schema.pattern).test(value))
    out.push({ path, message: `${show(value)} does not match /${schema.pattern}/` })
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ path, message: `${value} < minimum ${schema.minimum}` })
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ path, message: `${value} > maximum ${schema.maximum}` })
  }
  if (isObject(value)) {
    for (const key of schema.required ?? [])
      if (!(key in value)) out.push({ path: joinPath(path, key), message: 'required field missing' })
    for (const [key, item] of Object.entries(value)) {
      let matched = false
      const property = schema.properties?.[key]
      if (property !== undefined) {
        matched = true
        validate(item, property, root, joinPath(path, key), out)
      }
      for (const [pattern, sub] of Object.entries(schema.patternProperties ?? {}))
        if (regex(pattern).test(key)) {
          matched = true
          validate(item, sub, root, joinPath(path, key), out)
        }
      if (!matched && schema.additionalProperties !== undefined) {
        if (schema.additionalProperties === false) out.push({ path: joinPath(path, key), message: 'field not allowed by the schema' })
        else validate(item, schema.additionalProperties, root, joinPath(path, key), out)
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    const { items } = schema
    value.forEach((item, i) => {
      const sub = Array.isArray(items) ? items[i] : items
      if (sub !== undefined) validate(item, sub, root, `${path}[${i}]`, out)
    })
  }
  for (const sub of schema.allOf ?? []) validate(value, sub, root, path, out)
  if (schema.anyOf !== undefined) {
    const results = schema.anyOf.map((sub) => validateSchema(value, sub, root))
    if (!results.some((errors) => errors.length === 0)) out.push(...closest(results, path, 'anyOf'))
  }
  if (schema.oneOf !== undefined) {
    const results = schema.oneOf.map((sub) => validateSchema(value, sub, root))
    const valid = results.filter((errors) => errors.length === 0).length
    if (valid === 0) out.push(...closest(results, path, 'oneOf'))
    else if (valid > 1) out.push({ path, message: `matches ${valid} branches of oneOf, want exactly 1` })
  }
  if (schema.not !== undefined && validateSchema(value, schema.not, root).length === 0)
    out.push({ path, message: 'matches a schema it must not match' })
}

/** The errors of the branch that came closest, so the message points at the likely intent. */
function closest(results: SchemaError[][], path: string, keyword: string): SchemaError[] {
  const best = results.reduce((a, b) => (b.length < a.length ? b : a))
  return [
    { path, message: `matches none of the ${results.length} ${keyword} branches; closest fails with:` },
    ...best.map((error) => ({ path: joinPath(path, error.path), message: `  ${error.message}` })),
  ]
}

function resolveRef(ref: string, root: unknown): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref} (only local refs)`)
  let node: unknown = root
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
    node = isObject(node) ? node[key] : undefined
  }
  if (!isObject(node)) throw new Error(`unresolved $ref ${ref}`)
  return node as JsonSchema
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isObject(value)
    default:
      throw new Error(`unsupported schema type ${type}`)
  }
}

const regexCache = new Map<string, RegExp>()

function regex(pattern: string): RegExp {
  let compiled = regexCache.get(pattern)
  if (compiled === undefined) {
    try {
      compiled = new RegExp(pattern, 'u')
    } catch {
      // some spec patterns carry escapes that unicode mode rejects (e.g. `\-`)
      compiled = new RegExp(pattern)
    }
    regexCache.set(pattern, compiled)
  }
  return compiled
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]))
  }
  return false
}

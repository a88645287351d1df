/** A single JSON-RPC request as its text parts: the id and params as they were written. */
export type RequestText = { id: string; method: string; params: string }

const prefix = '{"jsonrpc":"2.0","id":'
const methodKey = ',"method":"'
const paramsKey = ',"params":'

/**
 * The parts of a request body written the way viem and most clients write
 * one (`JSON.stringify({ jsonrpc, id, method, params })`), or undefined:
 * exactly `{"jsonrpc":"2.0","id":ID,"method":"NAME","params":PARAMS}` with no
 * whitespace, ID a safe integer, null or a string without escapes, and NAME
 * letters, digits and underscores. For such a body JSON.stringify of the
 * parsed id gives back ID's text, so a reply can be written around it without
 * parsing the request. PARAMS is not checked here: it is whatever lies
 * between `"params":` and the closing brace, and the caller parses it.
 */
export function splitRequest(text: string): RequestText | undefined {
  if (!text.startsWith(prefix) || text.charCodeAt(text.length - 1) !== 0x7d /* } */) return undefined
  const idStart = prefix.length
  const idEnd = idLength(text, idStart)
  if (idEnd < 0 || !text.startsWith(methodKey, idEnd)) return undefined
  const methodStart = idEnd + methodKey.length
  let methodEnd = methodStart
  for (; methodEnd < text.length; methodEnd++) {
    const c = text.charCodeAt(methodEnd)
    if (c === 0x22 /* " */) break
    if (!isNameChar(c)) return undefined
  }
  if (methodEnd === methodStart || !text.startsWith(paramsKey, methodEnd + 1)) return undefined
  return {
    id: text.slice(idStart, idEnd),
    method: text.slice(methodStart, methodEnd),
    params: text.slice(methodEnd + 1 + paramsKey.length, -1),
  }
}

/** Where the id starting at `i` ends, or -1 when it is not one whose text JSON.stringify would give back. */
function idLength(text: string, i: number): number {
  const first = text.charCodeAt(i)
  if (first === 0x22 /* " */) {
    for (let j = i + 1; j < text.length; j++) {
      const c = text.charCodeAt(j)
      if (c === 0x22) return j + 1
      // Escapes, control characters and surrogates would come back spelled differently (or not parse).
      if (c === 0x5c /* \ */ || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) return -1
    }
    return -1
  }
  if (text.startsWith('null', i)) return i + 4
  // A safe integer without a leading zero, sign, fraction or exponent: its own shortest spelling.
  if (first === 0x30 /* 0 */) return isDigit(text.charCodeAt(i + 1)) ? -1 : i + 1
  let j = i
  while (j < text.length && isDigit(text.charCodeAt(j))) j++
  return j === i || j - i > 15 ? -1 : j
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isNameChar = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f

/**
 * The reply to a body that is not JSON (geth's), and the parse that gives
 * it. Its own module: the startup dispatcher, part of the CLI's front bundle,
 * answers it before the methods (dispatch.ts and everything it imports) are
 * loaded.
 */
export const parseError = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'

/** `respond` to the JSON in `text`, or the parse error when it is not JSON. */
export function respondToText<T>(text: string, respond: (payload: unknown) => T): T | string {
  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    return parseError
  }
  return respond(payload)
}

/**
 * The reply to a body that is not JSON (geth's). Its own module: the startup
 * dispatcher, part of the CLI's front bundle, answers it before the methods
 * (dispatch.ts and everything it imports) are loaded.
 */
export const parseError = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'

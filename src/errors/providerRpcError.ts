/** An RPC error as EIP-1193 providers throw it (viem maps `code` to its error classes). */
export class ProviderRpcError extends Error {
  override name = 'ProviderRpcError'
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

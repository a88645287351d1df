import type { Address, Client } from 'viem'
import { getChainId, readContract } from 'viem/actions'
import { tokenAbi } from './abi.js'
import type { TokenDomain } from './types.js'

/**
 * Reads the EIP-712 domain of a USDC-like token: `name()` and `version()` from
 * the token and the chain id from the chain (FiatToken V2_2 recomputes its
 * separator from `chainid()` on every call, so the chain is the authority).
 *
 * - JSON-RPC methods: `eth_call` (×2), `eth_chainId`
 *
 * @example
 * const domain = await readTokenDomain(client, '0x8335…')
 * // { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x8335…' }
 */
export async function readTokenDomain(client: Client, token: Address): Promise<TokenDomain> {
  const [name, version, chainId] = await Promise.all([
    readContract(client, { address: token, abi: tokenAbi, functionName: 'name' }),
    readContract(client, { address: token, abi: tokenAbi, functionName: 'version' }),
    getChainId(client),
  ])
  return { name, version, chainId, verifyingContract: token }
}

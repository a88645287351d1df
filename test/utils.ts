import { createPublicClient, createTestClient, createWalletClient, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { type DevnetOptions, startDevnet } from '../src/index.js'

/** A devnet over HTTP with manual mining and the virtual clock: the test default. */
export async function startTestDevnet(options: DevnetOptions = {}) {
  const devnet = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ...options })
  const transport = http(devnet.url)
  const publicClient = createPublicClient({ chain: devnet.chain, transport })
  const walletClient = createWalletClient({ chain: devnet.chain, transport })
  const testClient = createTestClient({ chain: devnet.chain, transport, mode: 'anvil' })
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return (await response.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } }
  }
  return { devnet, publicClient, walletClient, testClient, rpc }
}

/**
 * viem's schema override for helpers that send any method name with any
 * params and read the result loosely: `devnet.request<LooseRpc>({ method, params })`.
 * Everything else goes through DevnetRpcSchema.
 */
export type LooseRpc = { Parameters: unknown; ReturnType: any }

export const mnemonic = 'test test test test test test test test test test test junk'
export const account = (index: number) => mnemonicToAccount(mnemonic, { addressIndex: index })

import {
  type Account,
  type Chain,
  type PublicClient,
  type Transport,
  type WalletClient,
  type EIP1193RequestFn,
  type Hex,
  createPublicClient,
  createWalletClient,
  custom,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

/** The part of the devnet API these tests use (src/index.ts, being built by the lead). */
export type Devnet = {
  request: EIP1193RequestFn
  chain: Chain
  token: { address: Hex }
  seal(): Promise<unknown>
  preconfirm(): Promise<unknown>
  close(): Promise<void>
}

export const mnemonic = 'test test test test test test test test test test test junk'
/** Dev account 1 pays, 2 is the merchant (local key), 3 is a stranger. */
export const payerAccount = mnemonicToAccount(mnemonic, { addressIndex: 1 })
export const merchantAccount = mnemonicToAccount(mnemonic, { addressIndex: 2 })
export const strangerAccount = mnemonicToAccount(mnemonic, { addressIndex: 3 })

/**
 * Starts an in-process devnet, or returns the reason it cannot yet (the
 * entry point is written in parallel with this library). The specifier is a
 * variable so that type-checking does not depend on the file existing.
 */
export async function startDevnet(): Promise<{ devnet: Devnet } | { reason: string }> {
  const entry = '../../src/index.js'
  try {
    const module = (await import(/* @vite-ignore */ entry)) as {
      createDevnet?: (options: unknown) => Promise<Devnet>
    }
    if (typeof module.createDevnet !== 'function') return { reason: 'src/index.ts does not export createDevnet yet' }
    const devnet = await module.createDevnet({ mining: { type: 'manual' }, clock: 'virtual' })
    // The devnet is being written alongside: check the basics this suite
    // stands on before running it, so the suite skips instead of failing.
    try {
      await devnet.request({
        method: 'eth_call',
        params: [{ to: devnet.token.address, data: '0x06fdde03' /* name() */ }, 'pending'],
      } as never)
    } catch (error) {
      await devnet.close()
      return { reason: `eth_call on the token fails: ${(error as Error).message.split('\n')[0]}` }
    }
    return { devnet }
  } catch (error) {
    return { reason: `createDevnet is not available yet: ${(error as Error).message.split('\n')[0]}` }
  }
}

/** Whether an error is JSON-RPC "method not found" (a devnet feature not there yet). */
export function isMethodMissing(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === -32601 || e.code === -32004) return true
  return false
}

/**
 * Clients over the devnet's in-process `request`, with every submitted
 * transaction pre-confirmed at once (the devnet runs in manual mode, so the
 * tests drive it instead of sleeping). `eth_sendRawTransactionSync` is turned
 * into send + tick + receipt for the same reason. Raw transactions are kept for
 * re-inclusion after a reorg.
 */
export type Clients = {
  raw: Hex[]
  request: EIP1193RequestFn
  client: PublicClient<Transport, Chain>
  merchant: WalletClient<Transport, Chain, Account>
  stranger: WalletClient<Transport, Chain, Account>
  payer: WalletClient<Transport, Chain, Account>
}

export function createClients(devnet: Devnet): Clients {
  const raw: Hex[] = []
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    if (method === 'eth_sendRawTransactionSync') {
      const [serialized] = params as [Hex]
      raw.push(serialized)
      const hash = await devnet.request({ method: 'eth_sendRawTransaction', params: [serialized] } as never)
      await devnet.preconfirm()
      return devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] } as never)
    }
    const result = await devnet.request({ method, params } as never)
    if (method === 'eth_sendRawTransaction') raw.push((params as [Hex])[0])
    if (method === 'eth_sendTransaction' || method === 'eth_sendRawTransaction') await devnet.preconfirm()
    return result
  }) as EIP1193RequestFn
  // No retries: an in-process devnet does not drop requests, and a revert is final.
  const transport = custom({ request }, { retryCount: 0 })
  const options = { chain: devnet.chain, transport, pollingInterval: 10 } as const
  return {
    raw,
    request,
    client: createPublicClient(options),
    merchant: createWalletClient({ ...options, account: merchantAccount }),
    stranger: createWalletClient({ ...options, account: strangerAccount }),
    /** A JSON-RPC account: the devnet signs for it (eth_signTypedData_v4, eth_sendTransaction). */
    payer: createWalletClient({ ...options, account: payerAccount.address }),
  }
}

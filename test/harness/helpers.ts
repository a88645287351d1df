import { type Hex, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, type DevnetOptions, createDevnet } from '../../src/index.js'
import type { LooseRpc } from '../utils.js'

/** An in-process devnet with the test defaults, plus short helpers over its request function. */
export async function harnessDevnet(options: DevnetOptions = {}) {
  const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, ...options })
  return withHelpers(devnet)
}

export function withHelpers(devnet: Devnet) {
  const rpc = (method: string, ...params: unknown[]) => devnet.request<LooseRpc>({ method, params })
  const nonces = new Map<number, number>()
  /** Signs and sends a plain transfer from dev account `from`; nonces are tracked locally unless given. */
  const transfer = async (from: number, to: Hex, value: bigint = parseEther('1'), nonce?: number) => {
    const signer = privateKeyToAccount(devnet.accounts[from]!.privateKey)
    const n = nonce ?? nonces.get(from) ?? Number(await rpc('eth_getTransactionCount', signer.address, 'pending'))
    nonces.set(from, n + 1)
    const raw = await signer.signTransaction({
      chainId: devnet.chain.id, type: 'eip1559', to, value, nonce: n, gas: 21_000n,
      maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n,
    })
    return (await rpc('eth_sendRawTransaction', raw)) as Hex
  }
  const balance = async (address: string, tag = 'latest') => BigInt(await rpc('eth_getBalance', address, tag))
  const block = async (tag: string | bigint = 'latest') =>
    rpc('eth_getBlockByNumber', typeof tag === 'bigint' ? `0x${tag.toString(16)}` : tag, false) as Promise<{
      number: Hex; hash: Hex; timestamp: Hex; transactions: Hex[]; miner: Hex; gasLimit: Hex; baseFeePerGas: Hex; stateRoot: Hex
    }>
  const forgetNonces = () => nonces.clear()
  return { devnet, rpc, transfer, balance, block, forgetNonces }
}

/** Expects a request to fail with a JSON-RPC error; resolves with it. */
export async function rpcError(promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    return error as { code: number; message: string }
  }
  throw new Error('expected an RPC error')
}

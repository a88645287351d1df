import { type Hex, encodeFunctionData, keccak256, parseAbi, toHex } from 'viem'
import { account, startTestDevnet } from '../utils.js'

export const transferTopic = keccak256(toHex('Transfer(address,address,uint256)'))
export const erc20 = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])
export const pad = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}` as Hex

export type TestDevnet = Awaited<ReturnType<typeof startTestDevnet>>

/** Sends a token transfer from dev account `from` (unlocked, eth_sendTransaction); returns its hash. */
export async function sendTransfer(t: TestDevnet, from: number, to: number, value: bigint): Promise<Hex> {
  const response = await t.rpc('eth_sendTransaction', [
    {
      from: account(from).address,
      to: t.devnet.token.address,
      gas: '0x186a0',
      data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [account(to).address, value] }),
    },
  ])
  if (response.error) throw new Error(response.error.message)
  return response.result as Hex
}

/** The JSON-RPC result, or a thrown error with the code. */
export async function call(t: TestDevnet, method: string, params: unknown[] = []) {
  const response = await t.rpc(method, params)
  if (response.error) throw Object.assign(new Error(response.error.message), { code: response.error.code })
  return response.result
}

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

/** A raw WebSocket JSON-RPC client that keeps every notification, per subscription id. */
export async function connect(url: string) {
  const { WebSocket } = await import('ws')
  const socket = new WebSocket(url)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  let nextId = 1
  const waiting = new Map<number, (response: any) => void>()
  const notifications = new Map<string, unknown[]>()
  /** Every frame in arrival order: responses and notifications, to check ordering. */
  const frames: any[] = []
  socket.on('message', (raw) => {
    const message = JSON.parse(raw.toString())
    frames.push(message)
    if (Array.isArray(message)) {
      waiting.get(message[0]?.id)?.(message)
      return
    }
    if (message.method === 'eth_subscription') {
      const list = notifications.get(message.params.subscription) ?? []
      list.push(message.params.result)
      notifications.set(message.params.subscription, list)
      return
    }
    waiting.get(message.id)?.(message)
  })
  const send = (payload: unknown, id: number) =>
    new Promise<any>((resolve) => {
      waiting.set(id, resolve)
      socket.send(JSON.stringify(payload))
    })
  return {
    socket,
    frames,
    /** The full response object of one request. */
    request(method: string, params: unknown[] = []) {
      const id = nextId++
      return send({ jsonrpc: '2.0', id, method, params }, id)
    },
    /** The result of one request; throws on an error response. */
    async call(method: string, params: unknown[] = []) {
      const response = await this.request(method, params)
      if (response.error) throw Object.assign(new Error(response.error.message), { code: response.error.code })
      return response.result
    },
    batch(calls: { method: string; params?: unknown[] }[]) {
      const first = nextId
      const payload = calls.map((c) => ({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params ?? [] }))
      return send(payload, first) as Promise<any[]>
    },
    received: (subscription: string) => (notifications.get(subscription) ?? []) as any[],
    close: () => socket.close(),
  }
}

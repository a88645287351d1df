import { createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { bytesToHex } from 'viem'
import { address, blockId, hash, quantity } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'

const latest = { tag: 'latest' } as const
const slotKey = (slot: bigint) => setLengthLeft(hexToBytes(`0x${slot.toString(16).padStart(64, '0')}`), 32)

/**
 * Account state at any block: eth_getBalance, eth_getTransactionCount,
 * eth_getCode, eth_getStorageAt, eth_getStorageValues. `pending` reads the
 * pre-confirmed state; eth_getTransactionCount on `pending` also counts the
 * sender's pooled transactions, so a nonce never goes backwards (viem asks
 * for it before every send).
 */
export const stateMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getBalance',
    params: [address, blockId],
    required: 1,
    handler: async ({ node }, [addr, id]) => {
      const view = node.views.resolve(id ?? latest)
      const account = await node.views.reader(view).getAccount(createAddressFromString(addr))
      return q(account?.balance ?? 0n)
    },
  }),
  defineMethod({
    method: 'eth_getTransactionCount',
    params: [address, blockId],
    required: 1,
    handler: async ({ node }, [addr, id]) => {
      const view = node.views.resolve(id ?? latest)
      const account = await node.views.reader(view).getAccount(createAddressFromString(addr))
      const nonce = account?.nonce ?? 0n
      return q(view.kind === 'pending' ? node.pool.nextNonce(addr, nonce) : nonce)
    },
  }),
  defineMethod({
    method: 'eth_getCode',
    params: [address, blockId],
    required: 1,
    handler: async ({ node }, [addr, id]) => {
      const view = node.views.resolve(id ?? latest)
      return bytesToHex(await node.views.reader(view).getCode(createAddressFromString(addr)))
    },
  }),
  defineMethod({
    method: 'eth_getStorageAt',
    params: [address, quantity, blockId],
    required: 2,
    handler: async ({ node }, [addr, slot, id]) => {
      const view = node.views.resolve(id ?? latest)
      const value = await node.views.reader(view).getStorage(createAddressFromString(addr), slotKey(slot))
      return bytesToHex(setLengthLeft(value, 32))
    },
  }),
  defineMethod({
    method: 'eth_getStorageValues',
    params: [(v: unknown) => v, blockId],
    required: 2,
    handler: async ({ node }, [request, id]) => {
      if (typeof request !== 'object' || request === null || Array.isArray(request))
        throw new InvalidParamsError('invalid argument 0: expected an object of address to slots')
      const view = node.views.resolve(id)
      const reader = node.views.reader(view)
      const out: Record<string, string[]> = {}
      let total = 0
      for (const [addr, slots] of Object.entries(request as Record<string, unknown>)) {
        if (!Array.isArray(slots)) throw new InvalidParamsError(`invalid argument 0: slots of ${addr} must be an array`)
        total += slots.length
        if (total > 1024) throw new InvalidParamsError('too many slots (max 1024)')
        const a = createAddressFromString(address(addr))
        out[addr] = []
        for (const slot of slots) {
          const value = await reader.getStorage(a, slotKey(BigInt(hash(slot))))
          out[addr]!.push(bytesToHex(setLengthLeft(value, 32)))
        }
      }
      return out
    },
  }),
]

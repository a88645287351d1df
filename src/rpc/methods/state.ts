import { ArgError, address, blockId, storageKey } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { q } from '../format.js'

const latest = { tag: 'latest' } as const

/** Most slots one eth_getStorageValues may ask for, as geth. */
const maxStorageValues = 1024

/**
 * The request of eth_getStorageValues: `{ address: [slot, …] }`, decoded in
 * request order. The answer keys on the addresses as the caller spelled them.
 */
const storageRequest = (value: unknown) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgError('expected an object of address to slots')
  const entries = Object.entries(value as Record<string, unknown>)
  // geth refuses an empty map rather than answering {}
  if (entries.length === 0) throw new ArgError('empty request')
  let total = 0
  return entries.map(([key, slots]) => {
    if (!Array.isArray(slots)) throw new ArgError(`slots of ${key} must be an array`)
    total += slots.length
    if (total > maxStorageValues) throw new ArgError(`too many slots (max ${maxStorageValues})`)
    return { key, addr: address(key), slots: slots.map(storageKey) }
  })
}

/**
 * Account state at any block: eth_getBalance, eth_getTransactionCount,
 * eth_getCode, eth_getStorageAt, eth_getStorageValues. `pending` reads the
 * pre-confirmed state; eth_getTransactionCount on `pending` also counts the
 * sender's pooled transactions, so a nonce never goes backwards (viem asks
 * for it before every send). A repeated read at `latest` (or `pending`) is
 * answered from the dispatcher's memo (`readsState`, answerMemo.ts).
 */
export const stateMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getBalance',
    params: [address, blockId],
    required: 1,
    readsState: { block: 1, pending: true },
    handler: async ({ node }, [addr, id]) => q(await node.getBalance(addr, id ?? latest)),
  }),
  defineMethod({
    method: 'eth_getTransactionCount',
    params: [address, blockId],
    required: 1,
    // Not at `pending`, which also counts the pool's transactions: a send changes it without a new pre-confirmation.
    readsState: { block: 1, pending: false },
    handler: async ({ node }, [addr, id]) => q(await node.getTransactionCount(addr, id ?? latest)),
  }),
  defineMethod({
    method: 'eth_getCode',
    params: [address, blockId],
    required: 1,
    readsState: { block: 1, pending: true },
    handler: ({ node }, [addr, id]) => node.getCode(addr, id ?? latest),
  }),
  defineMethod({
    method: 'eth_getStorageAt',
    params: [address, storageKey, blockId],
    required: 2,
    readsState: { block: 2, pending: true },
    handler: ({ node }, [addr, slot, id]) => node.getStorageAt(addr, slot, id ?? latest),
  }),
  defineMethod({
    method: 'eth_getStorageValues',
    params: [storageRequest, blockId],
    required: 1,
    handler: async ({ node }, [request, id]) => {
      const words = await node.getStorageValues(request.map(({ addr, slots }) => ({ address: addr, slots })), id ?? latest)
      return Object.fromEntries(request.map(({ key }, i) => [key, words[i]!]))
    },
  }),
]

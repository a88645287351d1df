import type { BlockOverrides, StateOverrides } from '../../node/call.js'
import { ArgError, address, blockId, callRequest, data, hash, quantity, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { q } from '../format.js'

const latest = { tag: 'latest' } as const

const object = (what: string) => (value: unknown) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgError(`${what}: expected an object`)
  return value as Record<string, unknown>
}

/** Decodes eth_call's third parameter. */
export const stateOverrides = (value: unknown): StateOverrides => {
  const out: StateOverrides = {}
  for (const [addr, raw] of Object.entries(object('state override')(value))) {
    const o = object(`override of ${addr}`)(raw)
    out[address(addr)] = {
      balance: o.balance == null ? undefined : quantity(o.balance),
      nonce: o.nonce == null ? undefined : uint64(o.nonce),
      code: o.code == null ? undefined : data(o.code),
      state: o.state == null ? undefined : Object.fromEntries(Object.entries(object('state')(o.state)).map(([k, v]) => [hash(k), hash(v)])),
      stateDiff: o.stateDiff == null ? undefined : Object.fromEntries(Object.entries(object('stateDiff')(o.stateDiff)).map(([k, v]) => [hash(k), hash(v)])),
      movePrecompileToAddress: o.movePrecompileToAddress == null ? undefined : address(o.movePrecompileToAddress),
    }
  }
  return out
}

/** Decodes eth_call's fourth parameter. */
export const blockOverrides = (value: unknown): BlockOverrides => {
  const o = object('block override')(value)
  return {
    number: o.number == null ? undefined : uint64(o.number),
    time: o.time == null ? undefined : uint64(o.time),
    gasLimit: o.gasLimit == null ? undefined : uint64(o.gasLimit),
    feeRecipient: o.feeRecipient == null ? (o.coinbase == null ? undefined : address(o.coinbase)) : address(o.feeRecipient),
    prevRandao: o.prevRandao == null ? (o.random == null ? undefined : hash(o.random)) : hash(o.prevRandao),
    baseFeePerGas: o.baseFeePerGas == null ? (o.baseFee == null ? undefined : quantity(o.baseFee)) : quantity(o.baseFeePerGas),
    blobBaseFee: o.blobBaseFee == null ? undefined : quantity(o.blobBaseFee),
  }
}

/**
 * Calls: eth_call, eth_estimateGas, eth_createAccessList. On `pending` they
 * run in the pending block's env (number head+1, its timestamp), which is
 * what EIP-3009's strict validity window is checked against (invariant I1).
 */
export const callMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_call',
    params: [callRequest, blockId, stateOverrides, blockOverrides],
    required: 1,
    // Overrides are params too: with them the answer is still a function of the params and the block's state.
    readsState: { block: 1, pending: true },
    handler: ({ node }, [request, id, state, block]) =>
      node.call(request, id ?? latest, { stateOverrides: state, blockOverrides: block }),
  }),
  defineMethod({
    method: 'eth_estimateGas',
    params: [callRequest, blockId, stateOverrides, blockOverrides],
    required: 1,
    handler: async ({ node }, [request, id, state, block]) =>
      q(await node.estimateGas(request, id ?? latest, { stateOverrides: state, blockOverrides: block })),
  }),
  // geth's fixed-point search for the access list lives in the node (src/node/calls.ts).
  defineMethod({
    method: 'eth_createAccessList',
    params: [callRequest, blockId, stateOverrides],
    required: 1,
    handler: async ({ node }, [request, id, overrides]) => {
      const { accessList, gasUsed, error } = await node.createAccessList(request, id ?? latest, overrides)
      return { accessList, gasUsed: q(gasUsed), ...(error !== undefined ? { error } : {}) }
    },
  }),
]

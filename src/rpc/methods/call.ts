import type { Address, Hex } from 'viem'
import { type BlockOverrides, type StateOverrides, estimateGas, runCall, throwIfFailed } from '../../node/call.js'
import { callKey } from '../../node/callMemo.js'
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
    handler: async ({ node }, [request, id, state, block]) => {
      const view = node.views.resolve(id ?? latest)
      const run = async () => {
        const { returnData, reverted, error } = await node.views.withVm(view, (vm) =>
          runCall(node.common, vm, view, request, { stateOverrides: state, blockOverrides: block, gasCap: node.config.rpcGasCap }),
        )
        return { returnData, reverted, error }
      }
      // A call without overrides is a pure read of its view: the same call at the same view answers from the memo.
      const outcome = state || block ? await run() : await node.views.memo.run(view, callKey(request), run)
      throwIfFailed(outcome)
      return outcome.returnData
    },
  }),
  defineMethod({
    method: 'eth_estimateGas',
    params: [callRequest, blockId, stateOverrides, blockOverrides],
    required: 1,
    handler: async ({ node }, [request, id, state, block]) => {
      const view = node.views.resolve(id ?? latest)
      const gas = await node.views.withVm(view, (vm) =>
        estimateGas(node.common, vm, view, request, { stateOverrides: state, blockOverrides: block, gasCap: node.config.rpcGasCap }),
      )
      return q(gas)
    },
  }),
  defineMethod({
    method: 'eth_createAccessList',
    params: [callRequest, blockId, stateOverrides],
    required: 1,
    handler: async ({ node }, [request, id, overrides]) => {
      const view = node.views.resolve(id ?? latest)
      return node.views.withVm(view, async (vm) => {
        // geth: run with the access list found so far until it stops changing.
        let accessList: { address: Address; storageKeys: Hex[] }[] = request.accessList ?? []
        const from = (request.from ?? '0x0000000000000000000000000000000000000000').toLowerCase()
        const to = request.to?.toLowerCase()
        for (let i = 0; i < 10; i++) {
          const found = await trace(accessList)
          const next = found.list
            .filter((e) => e.address !== from && e.address !== to && !isPrecompile(e.address))
          const same = JSON.stringify(next) === JSON.stringify(accessList)
          accessList = next
          if (same) {
            const out: Record<string, unknown> = { accessList, gasUsed: q(found.outcome.gasUsed) }
            if (found.outcome.status === 0) out.error = found.outcome.reverted ? 'execution reverted' : found.outcome.error
            return out
          }
        }
        const found = await trace(accessList)
        return { accessList, gasUsed: q(found.outcome.gasUsed) }

        async function trace(list: { address: Address; storageKeys: Hex[] }[]) {
          const state = vm.stateManager
          await state.checkpoint()
          try {
            const outcome = await runCall(
              node.common,
              vm,
              view,
              { ...request, accessList: list, type: request.type ?? (request.gasPrice !== undefined ? 1 : 2) },
              { stateOverrides: overrides, gasCap: node.config.rpcGasCap, reportAccessList: true },
            )
            const raw = (outcome.result.accessList ?? []) as { address: string; storageKeys: string[] }[]
            const list2 = raw
              .map((e) => ({ address: e.address.toLowerCase() as Address, storageKeys: [...e.storageKeys].map((k) => k.toLowerCase() as Hex).sort() }))
              .sort((a, b) => (a.address < b.address ? -1 : 1))
            return { outcome, list: list2 }
          } finally {
            await state.revert()
          }
        }
      })
    },
  }),
]

const isPrecompile = (a: string) => (BigInt(a) > 0n && BigInt(a) <= 0x11n) || BigInt(a) === 0x100n

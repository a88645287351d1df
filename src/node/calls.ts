import type { Address, Hex } from 'viem'
import type { CallRequest } from '../evm/execute.js'
import { type BlockOverrides, type StateOverrides, estimateGas, runCall, throwIfFailed } from './call.js'
import { type CallMemo, callKey } from './callMemo.js'
import type { BlockId, View } from './views.js'
import type { Common, VM } from '../evm/engine.js'

/** eth_call's and eth_estimateGas's overrides. */
export type CallOverrides = { stateOverrides?: StateOverrides | undefined; blockOverrides?: BlockOverrides | undefined }

/** What the calls read: the views (a block's state, a VM on it), the chain's rules, the RPC gas cap. */
export type CallParts = {
  views: { resolve(id: BlockId): View; withVm<T>(view: View, fn: (vm: VM) => Promise<T>): Promise<T>; memo: CallMemo }
  common: Common
  gasCap: bigint
}

/** An access list entry as geth reports it: lowercase address, sorted lowercase keys. */
export type AccessListEntry = { address: Address; storageKeys: Hex[] }

/** The precompiles (0x01..0x11, P256VERIFY at 0x100): geth leaves them out of a created access list. */
const isPrecompile = (a: string) => (BigInt(a) > 0n && BigInt(a) <= 0x11n) || BigInt(a) === 0x100n

/**
 * The calls as node operations: eth_call, eth_estimateGas and
 * eth_createAccessList on the state of block `id`. On `pending` they run in
 * the pending block's env (number head+1, its timestamp), which is what
 * EIP-3009's strict validity window is checked against (invariant I1).
 */
export function createCalls(parts: CallParts) {
  const { views, common } = parts
  const gasCap = () => parts.gasCap
  return {
    /** Runs `request` and resolves with its return data; a revert or VM error throws (code 3, -32015). */
    async call(request: CallRequest, id: BlockId, overrides: CallOverrides = {}): Promise<Hex> {
      const view = views.resolve(id)
      const run = async () => {
        const { returnData, reverted, error } = await views.withVm(view, (vm) =>
          runCall(common, vm, view, request, { ...overrides, gasCap: gasCap() }),
        )
        return { returnData, reverted, error }
      }
      // A call without overrides is a pure read of its view: the same call at the same view answers from the memo.
      const outcome = overrides.stateOverrides || overrides.blockOverrides ? await run() : await views.memo.run(view, callKey(request), run)
      throwIfFailed(outcome)
      return outcome.returnData
    },
    /** geth's gas estimate for `request` (src/node/call.ts). */
    estimateGas(request: CallRequest, id: BlockId, overrides: CallOverrides = {}): Promise<bigint> {
      const view = views.resolve(id)
      return views.withVm(view, (vm) => estimateGas(common, vm, view, request, { ...overrides, gasCap: gasCap() }))
    },
    /**
     * geth's eth_createAccessList: runs the call with the access list found
     * so far until it stops changing (at most ten runs), leaving out the
     * sender, the recipient and the precompiles. `error` is set when the
     * last run failed.
     */
    createAccessList(
      request: CallRequest,
      id: BlockId,
      stateOverrides: StateOverrides | undefined,
    ): Promise<{ accessList: AccessListEntry[]; gasUsed: bigint; error?: string | undefined }> {
      const view = views.resolve(id)
      return views.withVm(view, async (vm) => {
        let accessList: AccessListEntry[] = request.accessList ?? []
        const from = (request.from ?? '0x0000000000000000000000000000000000000000').toLowerCase()
        const to = request.to?.toLowerCase()
        const trace = async (list: AccessListEntry[]) => {
          const state = vm.stateManager
          await state.checkpoint()
          try {
            const outcome = await runCall(
              common,
              vm,
              view,
              { ...request, accessList: list, type: request.type ?? (request.gasPrice !== undefined ? 1 : 2) },
              { stateOverrides, gasCap: gasCap(), reportAccessList: true },
            )
            const raw = (outcome.result.accessList ?? []) as { address: string; storageKeys: string[] }[]
            const found = raw
              .map((e) => ({ address: e.address.toLowerCase() as Address, storageKeys: [...e.storageKeys].map((k) => k.toLowerCase() as Hex).sort() }))
              .sort((a, b) => (a.address < b.address ? -1 : 1))
            return { outcome, list: found }
          } finally {
            await state.revert()
          }
        }
        for (let i = 0; i < 10; i++) {
          const found = await trace(accessList)
          const next = found.list.filter((e) => e.address !== from && e.address !== to && !isPrecompile(e.address))
          const same = JSON.stringify(next) === JSON.stringify(accessList)
          accessList = next
          if (same) {
            const out: { accessList: AccessListEntry[]; gasUsed: bigint; error?: string | undefined } = { accessList, gasUsed: found.outcome.gasUsed }
            if (found.outcome.status === 0) out.error = found.outcome.reverted ? 'execution reverted' : found.outcome.error
            return out
          }
        }
        const found = await trace(accessList)
        return { accessList, gasUsed: found.outcome.gasUsed }
      })
    },
  }
}

/**
 * eth_simulateV1: runs blocks of calls on top of a block, with state and
 * block overrides, without changing the chain.
 *
 * Spec: ethereum/execution-apis `src/eth/execute.yaml`; behaviour follows
 * geth's `internal/ethapi/simulate.go`, which recorded the conformance cases.
 *
 * ```
 * >> {"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[{"from":"0x…","to":"0x…","value":"0x1"}]}],
 *      "traceTransfers":true},"latest"]}
 * << {"result":[{"number":"0x2","hash":"0x…",…,"calls":[{"status":"0x1","returnData":"0x","gasUsed":"0x5208",
 *      "maxUsedGas":"0x5208","logs":[{"address":"0xeeee…","topics":["0xddf2…",…],…}]}]}]}
 * ```
 *
 * Devnet specifics: on `pending` the blocks build on the pre-confirmed state
 * and the first one takes the pending block's timestamp; on the dev chain
 * simulated blocks are 2 s apart (the block time) and report a zero state
 * root, as Base's node does; an imported geth chain gets geth's 12 s and
 * real roots (`simulate` in the config changes both).
 */
import type { CallRequest } from '../../node/engineTypes.js'
import type { StateOverrides } from '../../node/call.js'
import type { SimBlock, SimBlockOverrides, SimulatePayload, SimulatedBlock, Withdrawal } from '../../node/simulate/types.js'
import { ArgError, address, blockId, bool, callRequest, hash, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { formatBlock, formatLog, q } from '../format.js'
import { blockOverrides, stateOverrides } from './call.js'

const latest = { tag: 'latest' } as const

const object = (what: string, value: unknown) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ArgError(`${what}: expected an object`)
  return value as Record<string, unknown>
}
const array = (what: string, value: unknown) => {
  if (!Array.isArray(value)) throw new ArgError(`${what}: expected an array`)
  return value as unknown[]
}
const flag = (value: unknown) => (value == null ? false : bool(value))

const withdrawal = (value: unknown): Withdrawal => {
  const w = object('withdrawal', value)
  return { index: uint64(w.index), validatorIndex: uint64(w.validatorIndex), address: address(w.address), amount: uint64(w.amount) }
}

/** eth_call's block overrides plus `withdrawals` and `beaconRoot`; unknown keys are ignored, as Go's JSON does. */
const simBlockOverrides = (value: unknown): SimBlockOverrides => {
  const o = object('blockOverrides', value)
  return {
    ...blockOverrides(o),
    withdrawals: o.withdrawals == null ? undefined : array('withdrawals', o.withdrawals).map(withdrawal),
    beaconRoot: o.beaconRoot == null ? undefined : hash(o.beaconRoot),
  }
}

const simBlock = (value: unknown, index: number): SimBlock => {
  const b = object(`blockStateCalls[${index}]`, value)
  return {
    blockOverrides: b.blockOverrides == null ? undefined : simBlockOverrides(b.blockOverrides),
    stateOverrides: b.stateOverrides == null ? undefined : (stateOverrides(b.stateOverrides) as StateOverrides),
    calls: b.calls == null ? [] : array('calls', b.calls).map((call): CallRequest => callRequest(call)),
  }
}

/** Decodes the payload; a missing `blockStateCalls` is an empty list, which the engine refuses as geth does. */
export const simulatePayload = (value: unknown): SimulatePayload => {
  const p = object('payload', value)
  return {
    blockStateCalls: p.blockStateCalls == null ? [] : array('blockStateCalls', p.blockStateCalls).map(simBlock),
    traceTransfers: flag(p.traceTransfers),
    validation: flag(p.validation),
    returnFullTransactions: flag(p.returnFullTransactions),
  }
}

/** One simulated block in geth's shape: the block object (as eth_getBlockByNumber) plus `calls`. */
export function formatSimulatedBlock(sim: SimulatedBlock, full: boolean) {
  const header = sim.block.header
  const out = formatBlock(
    { block: sim.block, txs: sim.txs, number: header.number, hash: sim.hash, logOffsets: [], stateRoot: header.stateRoot, size: sim.size },
    full,
  )
  out.calls = sim.calls.map((call, index) => {
    const result: Record<string, unknown> = {
      returnData: call.returnData,
      logs: call.logs.map((log) =>
        formatLog(log, {
          blockNumber: header.number,
          blockHash: sim.hash,
          blockTimestamp: header.timestamp,
          txHash: sim.txs[index]!.hash,
          txIndex: index,
          logIndex: log.logIndex,
        }),
      ),
      gasUsed: q(call.gasUsed),
      maxUsedGas: q(call.maxUsedGas),
      status: q(call.status),
    }
    if (call.error) result.error = call.error.data === undefined ? { code: call.error.code, message: call.error.message } : call.error
    return result
  })
  return out
}

export const simulateMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_simulateV1',
    params: [simulatePayload, blockId],
    required: 1,
    handler: async ({ node }, [payload, id]) => {
      const blocks = await node.simulate(id ?? latest, payload)
      return blocks.map((block) => formatSimulatedBlock(block, payload.returnFullTransactions))
    },
  }),
]


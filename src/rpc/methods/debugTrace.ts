import type { BlockOverrides, StateOverrides } from '../../node/call.js'
import type { TracerSpec } from '../../node/trace.js'
import { ArgError, blockId, callRequest, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { blockOverrides, stateOverrides } from './call.js'

/**
 * geth's tracing methods: debug_traceTransaction, debug_traceBlockByNumber,
 * debug_traceBlockByHash (the sealed block replayed from its parent's state,
 * see node/trace.ts) and debug_traceCall (a call as eth_call runs it, with
 * its state and block overrides). The block methods wrap each transaction's
 * result as `{txHash, result}`.
 *
 * Two tracers: the default struct logger (`{gas, failed, returnValue,
 * structLogs}`) and `callTracer` (the call tree; `tracerConfig.onlyTopCall`,
 * `withLog`). Any other named tracer is refused with -32602 rather than
 * answered in another shape. Pre-confirmed transactions are traced too (the
 * pending block replayed on the head), which geth, having no such layer,
 * does not offer: debug_traceTransaction finds them by hash and
 * debug_traceBlockByNumber takes `pending`.
 *
 * @example
 * ```json
 * >> {"method":"debug_traceTransaction","params":["0xc1d6…b09e",{"enableMemory":true}]}
 * << {"result":{"gas":66259,"failed":false,"returnValue":"0x6000…","structLogs":[
 *      {"pc":0,"op":"PUSH1","gas":23644,"gasCost":3,"depth":1,"stack":[]},…]}}
 * ```
 */
export const debugTraceMethods: MethodDef[] = [
  defineMethod({
    method: 'debug_traceCall',
    params: [callRequest, blockId, traceCallConfig],
    required: 1,
    handler: ({ node }, [request, id, config]) =>
      node.traceCall(
        request,
        id ?? { tag: 'latest' },
        { stateOverrides: config?.stateOverrides, blockOverrides: config?.blockOverrides },
        config?.spec ?? defaultTracer,
      ),
  }),
  defineMethod({
    method: 'debug_traceTransaction',
    params: [hash, traceConfig],
    required: 1,
    handler: ({ node }, [txHash, config]) => node.traceTransaction(txHash, config ?? defaultTracer),
  }),
  defineMethod({
    method: 'debug_traceBlockByNumber',
    params: [blockNumber, traceConfig],
    required: 1,
    handler: ({ node }, [number, config]) => node.traceBlockByNumber(number, config ?? defaultTracer),
  }),
  defineMethod({
    method: 'debug_traceBlockByHash',
    params: [hash, traceConfig],
    required: 1,
    handler: ({ node }, [blockHash, config]) => node.traceBlockByHash(blockHash, config ?? defaultTracer),
  }),
]

function blockNumber(value: unknown) {
  if (value === 'pending') return 'pending' as const
  const id = blockId(value)
  if ('hash' in id) throw new ArgError('invalid block number')
  return id
}

/**
 * The tracer config: geth's `TraceConfig`. No `tracer` (or `""`) is the
 * struct logger with its switches; `callTracer` takes `tracerConfig`
 * `{onlyTopCall, withLog}`. `timeout` and `reexec` are accepted and ignored
 * (a replay is never abandoned: devnet keeps every state).
 */
function traceConfig(value: unknown): TracerSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgError('cannot unmarshal non-object into Go value of type tracers.TraceConfig')
  const o = value as Record<string, unknown>
  const flag = (from: Record<string, unknown>, name: string) => {
    const v = from[name]
    if (v === undefined || v === null) return false
    if (typeof v !== 'boolean') throw new ArgError(`${name}: cannot unmarshal ${typeof v} into Go value of type bool`)
    return v
  }
  if (o.tracer === 'callTracer') {
    const c = o.tracerConfig ?? {}
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw new ArgError('tracerConfig: expected an object')
    const tc = c as Record<string, unknown>
    return { kind: 'call', config: { onlyTopCall: flag(tc, 'onlyTopCall'), withLog: flag(tc, 'withLog') } }
  }
  if (o.tracer !== undefined && o.tracer !== null && o.tracer !== '')
    throw new ArgError(`tracer ${JSON.stringify(o.tracer)} is not supported; use the default struct logger or "callTracer"`)
  return {
    kind: 'struct',
    config: {
      disableStack: flag(o, 'disableStack'),
      disableStorage: flag(o, 'disableStorage'),
      enableMemory: flag(o, 'enableMemory'),
      enableReturnData: flag(o, 'enableReturnData'),
    },
  }
}

/** debug_traceCall's config: a TraceConfig plus eth_call's state and block overrides. */
function traceCallConfig(value: unknown): { spec: TracerSpec; stateOverrides?: StateOverrides | undefined; blockOverrides?: BlockOverrides | undefined } {
  const spec = traceConfig(value)
  const o = value as Record<string, unknown>
  return {
    spec,
    stateOverrides: o.stateOverrides == null ? undefined : stateOverrides(o.stateOverrides),
    blockOverrides: o.blockOverrides == null ? undefined : blockOverrides(o.blockOverrides),
  }
}

/** Default when no config is sent: the struct logger with stack and storage, no memory or return data, as geth. */
export const defaultTracer: TracerSpec = {
  kind: 'struct',
  config: { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false },
}

import type { StructLoggerConfig } from '../../evm/structLogger.js'
import type { StoredBlock } from '../../node/chain.js'
import { InvalidInputError } from '../../node/errors.js'
import type { Node } from '../../node/node.js'
import { traceBlock } from '../../node/trace.js'
import { ArgError, blockId, hash } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'

/**
 * The struct logger tracing methods of geth: debug_traceTransaction,
 * debug_traceBlockByNumber, debug_traceBlockByHash. Each replays the sealed
 * block from its parent's state (see node/trace.ts) and returns, per
 * transaction, `{gas, failed, returnValue, structLogs}`; the block methods
 * wrap each as `{txHash, result}`.
 *
 * Only the default (struct) logger is served: a named JS or native tracer
 * (`callTracer`, `prestateTracer`, …) is refused with -32602 rather than
 * silently answered with struct logs. Pre-confirmed transactions are not
 * traceable until sealed, as geth does not trace pending ones.
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
    method: 'debug_traceTransaction',
    params: [hash, traceConfig],
    required: 1,
    handler: async ({ node }, [txHash, config]) => {
      const at = node.chain.txLocation(txHash)
      if (!at) throw new InvalidInputError('transaction not found')
      const [trace] = await replay(node, at.block, config, at.index)
      return trace!.result
    },
  }),
  defineMethod({
    method: 'debug_traceBlockByNumber',
    params: [blockNumber, traceConfig],
    required: 1,
    handler: async ({ node }, [number, config]) => {
      const view = number === 'pending' ? undefined : node.views.resolve(number)
      const block = view?.kind === 'sealed' ? view.block : undefined
      if (!block) throw new InvalidInputError('tracing the pending block is not supported; seal it first')
      return replay(node, block, config)
    },
  }),
  defineMethod({
    method: 'debug_traceBlockByHash',
    params: [hash, traceConfig],
    required: 1,
    handler: async ({ node }, [blockHash, config]) => {
      const block = node.chain.blockByHash(blockHash)
      if (!block) throw new InvalidInputError(`block ${blockHash} not found`)
      return replay(node, block, config)
    },
  }),
]

function replay(node: Node, block: StoredBlock, config: StructLoggerConfig | undefined, only?: number) {
  const args = { common: node.common, state: node.internals.state, chain: node.chain }
  return traceBlock(args, block, config ?? defaultTraceConfig, only)
}

/** A block number or tag for debug_traceBlockByNumber (no EIP-1898 object, as geth). */
function blockNumber(value: unknown) {
  if (value === 'pending') return 'pending' as const
  const id = blockId(value)
  if ('hash' in id) throw new ArgError('invalid block number')
  return id
}

/**
 * The tracer config: geth's `TraceConfig` with the struct logger's switches.
 * `timeout` and `reexec` are accepted and ignored (a replay is never
 * abandoned: devnet keeps every state).
 */
function traceConfig(value: unknown): StructLoggerConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgError('cannot unmarshal non-object into Go value of type tracers.TraceConfig')
  const o = value as Record<string, unknown>
  if (o.tracer !== undefined && o.tracer !== null && o.tracer !== '')
    throw new ArgError(`tracer ${JSON.stringify(o.tracer)} is not supported; only the default struct logger is`)
  const flag = (name: string) => {
    const v = o[name]
    if (v === undefined || v === null) return false
    if (typeof v !== 'boolean') throw new ArgError(`${name}: cannot unmarshal ${typeof v} into Go value of type bool`)
    return v
  }
  return {
    disableStack: flag('disableStack'),
    disableStorage: flag('disableStorage'),
    enableMemory: flag('enableMemory'),
    enableReturnData: flag('enableReturnData'),
  }
}

/** Default when no config is sent: stack and storage on, memory and return data off, as geth. */
export const defaultTraceConfig: StructLoggerConfig = {
  disableStack: false,
  disableStorage: false,
  enableMemory: false,
  enableReturnData: false,
}

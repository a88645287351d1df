import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import type { Hex } from 'viem'
import { decodeErrorResult, getContractAddress } from 'viem/utils'
import { evmListeners } from './evmListeners.js'

/** geth's callTracer options. */
export type CallTracerConfig = { onlyTopCall: boolean; withLog: boolean }

/** One call frame in geth's callTracer shape. */
export type CallFrame = {
  type: string
  from: Hex
  to?: Hex
  value?: Hex
  gas: Hex
  gasUsed: Hex
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  logs?: { address: Hex; topics: Hex[]; data: Hex; position: Hex }[]
  calls?: CallFrame[]
}

const q = (value: bigint | number) => `0x${value.toString(16)}` as Hex
const callOps = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2'])

/** geth's words for the EVM errors ethereumjs reports. */
function gethError(error: string): string {
  if (error === 'revert') return 'execution reverted'
  if (error === 'invalid opcode') return 'invalid opcode'
  return error
}

/**
 * geth's `callTracer` on an ethereumjs VM: the tree of message calls of one
 * transaction, each with its type (the opcode that made it), from, to,
 * value, gas given and used, input and output, and on failure geth's error
 * text and the decoded revert reason. `withLog` adds each frame's logs with
 * their position among the frame's sub-calls; `onlyTopCall` keeps the root.
 */
export function createCallTracer(vm: VM, config: CallTracerConfig) {
  const stack: (CallFrame & { depth: number })[] = []
  let root: CallFrame | undefined
  /** The opcode each depth ran last: the one that opens the next frame below it. */
  const lastOp: string[] = []

  const onStep = (step: InterpreterStep) => {
    lastOp[step.depth] = step.opcode.name
    if (config.withLog && step.opcode.name.startsWith('LOG')) {
      const frame = stack[stack.length - 1]
      if (!frame) return
      const n = step.stack.length
      const [offset, size] = [Number(step.stack[n - 1]!), Number(step.stack[n - 2]!)]
      const topicCount = Number(step.opcode.name.slice(3))
      const topics = Array.from({ length: topicCount }, (_, i) => `0x${step.stack[n - 3 - i]!.toString(16).padStart(64, '0')}` as Hex)
      const memory = new Uint8Array(size)
      memory.set(step.memory.subarray(offset, offset + size))
      ;(frame.logs ??= []).push({
        address: step.address.toString() as Hex,
        topics,
        data: bytesToHex(memory) as Hex,
        position: q(frame.calls?.length ?? 0),
      })
    }
  }
  const onBeforeMessage = (message: Message) => {
    const opcode = message.depth === 0 ? undefined : lastOp[message.depth - 1]
    const create = message.to === undefined
    const type = opcode && callOps.has(opcode) ? opcode : create ? 'CREATE' : 'CALL'
    const frame: CallFrame & { depth: number } = {
      depth: message.depth,
      type,
      from: message.caller.toString() as Hex,
      gas: q(message.gasLimit),
      gasUsed: '0x0',
      input: bytesToHex(message.data) as Hex,
    }
    if (!create) frame.to = message.to!.toString() as Hex
    if (type !== 'STATICCALL' && type !== 'DELEGATECALL') frame.value = q(message.value)
    stack.push(frame)
  }
  const onAfterMessage = (result: EVMResult) => {
    const frame = stack.pop()
    if (!frame) return
    const exec = result.execResult
    frame.gasUsed = q(exec.executionGasUsed)
    if (result.createdAddress) frame.to = result.createdAddress.toString() as Hex
    if (exec.returnValue.length > 0) frame.output = bytesToHex(exec.returnValue) as Hex
    if (exec.exceptionError) {
      frame.error = gethError(exec.exceptionError.error)
      if (exec.exceptionError.error === 'revert') {
        try {
          const decoded = decodeErrorResult({ data: bytesToHex(exec.returnValue) as Hex })
          if (decoded.errorName === 'Error') frame.revertReason = String(decoded.args?.[0])
        } catch {}
      } else frame.output = undefined
      // geth drops the logs of a failed frame
      frame.logs = undefined
    }
    const { depth: _depth, ...out } = frame
    const parent = stack[stack.length - 1]
    if (parent && !config.onlyTopCall) (parent.calls ??= []).push(out)
    if (!parent) root = out
  }

  return {
    ...evmListeners(vm, { step: onStep, beforeMessage: onBeforeMessage, afterMessage: onAfterMessage }),
    /**
     * The root frame of the transaction that just ran, with geth's top-level
     * numbers: the transaction's gas limit and the gas the receipt charges.
     */
    finish(tx: TypedTransaction, result: RunTxResult): CallFrame {
      const top: CallFrame = root ?? {
        type: tx.to ? 'CALL' : 'CREATE',
        from: tx.getSenderAddress().toString() as Hex,
        gas: '0x0',
        gasUsed: '0x0',
        input: bytesToHex(tx.data) as Hex,
      }
      top.gas = q(tx.gasLimit)
      top.gasUsed = q(result.totalGasSpent)
      if (!tx.to && !top.to) top.to = getContractAddress({ from: top.from, nonce: tx.nonce }).toLowerCase() as Hex
      root = undefined
      stack.length = 0
      lastOp.length = 0
      return top
    },
  }
}

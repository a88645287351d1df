import type { EVMInterface } from '../../evm/engine.js'
import type { Hex } from 'viem'
import { numberToHex, pad } from 'viem/utils'
import { type OpcodeObserver, observeOpcodes } from '../../evm/engine.js'
import { patchActive } from '../../evm/engine.js'
import type { EvmLog } from '../../evm/types.js'

/** ERC-7528's native-asset address, the emitter geth gives synthetic transfer logs. */
export const transferEmitter = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' as const
/** keccak256("Transfer(address,address,uint256)") */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as const

/** What happened in a frame, in order: a contract log (its content comes from the VM) or a value transfer. */
type Item = { kind: 'log' } | { kind: 'transfer'; from: Hex; to: Hex | undefined; value: bigint }
type Frame = { items: Item[]; create: boolean }

type Message = {
  caller: { toString(): string }
  to?: { toString(): string; equals(other: unknown): boolean } | undefined
  codeAddress?: { equals(other: unknown): boolean } | undefined
  value: bigint
  delegatecall?: boolean | undefined
}
type StepEvent = {
  opcode: { code: number }
  stack: bigint[]
  address: { toString(): string }
  stateManager: { getAccount(address: unknown): Promise<{ balance: bigint } | undefined> }
}
type MessageResult = { execResult: { exceptionError?: unknown } }

const transferLog = (from: Hex, to: Hex, value: bigint): EvmLog => ({
  address: transferEmitter,
  topics: [transferTopic, pad(from), pad(to)],
  data: pad(numberToHex(value)),
})

/**
 * geth's `traceTransfers` (internal/ethapi/logtracer.go) on ethereumjs's EVM
 * events: every frame that moves value (top-level value, CALL value, CREATE
 * endowment, SELFDESTRUCT payout; not DELEGATECALL or CALLCODE) yields an
 * ERC-20 `Transfer` log from the ERC-7528 address, at the point in execution
 * where the frame starts, and a frame that fails takes its logs with it.
 *
 * The VM collects contract logs itself, so the tracer only records where each
 * LOG opcode ran relative to the transfers; a successful transaction's logs
 * are then interleaved with the transfers in that order. Devnet's engine
 * tells the tracer of each LOG and SELFDESTRUCT as it runs
 * (evm/opcodeObserver.ts); the library as published (DEVNET_ENGINE=stock)
 * only through 'step' events, which make the interpreter build an event per
 * opcode. Either is attached only while a call runs, and only when asked for.
 */
export async function traceTransfers<T extends { execResult: { logs?: unknown } }>(
  evm: EVMInterface,
  run: () => Promise<T>,
  logsOf: (result: T) => EvmLog[],
): Promise<{ result: T; logs: EvmLog[] }> {
  const frames: Frame[] = []
  let top: Item[] = []

  const onMessage = (message: Message) => {
    const frame: Frame = { items: [], create: message.to === undefined }
    const isCallcode = message.to !== undefined && message.codeAddress !== undefined && !message.to.equals(message.codeAddress)
    if (message.value > 0n && message.delegatecall !== true && !isCallcode)
      frame.items.push({ kind: 'transfer', from: message.caller.toString() as Hex, to: message.to?.toString() as Hex | undefined, value: message.value })
    frames.push(frame)
  }
  // A CREATE's address is known only once the VM derives it; the endowment log waits for it.
  const onContract = (event: { address: { toString(): string } }) => {
    const frame = frames[frames.length - 1]
    const first = frame?.items[0]
    if (frame?.create && first?.kind === 'transfer' && first.to === undefined) first.to = event.address.toString() as Hex
  }
  const observer: OpcodeObserver = {
    log: () => frames[frames.length - 1]?.items.push({ kind: 'log' }),
    selfdestruct: (address, beneficiary, balance) => {
      const frame = frames[frames.length - 1]
      if (frame && balance > 0n)
        frame.items.push({ kind: 'transfer', from: address.toString() as Hex, to: pad(numberToHex(beneficiary), { size: 20 }), value: balance })
    },
  }
  const onStep = (step: StepEvent, resolve?: (result?: unknown) => void) => {
    const frame = frames[frames.length - 1]
    const code = step.opcode.code
    if (frame === undefined || (code !== 0xff && (code < 0xa0 || code > 0xa4))) return resolve?.()
    if (code !== 0xff) {
      frame.items.push({ kind: 'log' })
      return resolve?.()
    }
    // SELFDESTRUCT pays the whole balance to the beneficiary on top of the stack.
    const beneficiary = pad(numberToHex(step.stack[step.stack.length - 1]!), { size: 20 })
    step.stateManager
      .getAccount(step.address)
      .then((account) => {
        const value = account?.balance ?? 0n
        if (value > 0n) frame.items.push({ kind: 'transfer', from: step.address.toString() as Hex, to: beneficiary, value })
      })
      .finally(() => resolve?.())
  }
  const onMessageEnd = (result: MessageResult) => {
    const frame = frames.pop()
    if (frame === undefined) return
    const failed = result.execResult.exceptionError !== undefined
    const parent = frames[frames.length - 1]
    if (parent === undefined) top = failed ? [] : frame.items
    else if (!failed) parent.items.push(...frame.items)
  }

  const events = evm.events as unknown as {
    on(event: string, listener: (...args: never[]) => void): void
    off(event: string, listener: (...args: never[]) => void): void
  }
  const observed = patchActive('opcode-observer')
  events.on('beforeMessage', onMessage)
  events.on('newContract', onContract)
  if (observed) observeOpcodes(evm, observer)
  else events.on('step', onStep)
  events.on('afterMessage', onMessageEnd)
  let result: T
  try {
    result = await run()
  } finally {
    events.off('beforeMessage', onMessage)
    events.off('newContract', onContract)
    if (observed) observeOpcodes(evm, undefined)
    else events.off('step', onStep)
    events.off('afterMessage', onMessageEnd)
  }
  const contractLogs = logsOf(result)
  const logs: EvmLog[] = []
  let next = 0
  for (const item of top) {
    if (item.kind === 'log') {
      const log = contractLogs[next++]
      if (log) logs.push(log)
    } else if (item.to !== undefined) logs.push(transferLog(item.from, item.to, item.value))
  }
  // Logs the VM added outside any LOG opcode (none today) keep their place at the end.
  for (; next < contractLogs.length; next++) logs.push(contractLogs[next]!)
  return { result, logs }
}

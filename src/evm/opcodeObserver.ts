import { evmInternals } from './evmInternals.js'

/**
 * What a tracer of value transfers (eth_simulateV1's traceTransfers) needs
 * to hear from the opcodes of one EVM: where each LOG ran, and each
 * SELFDESTRUCT with the balance it pays out.
 *
 * The library's only way to hear of an opcode is a `step` listener, and with
 * one the interpreter builds an event per opcode (copies of the stack and
 * memory) and leaves devnet's loop (interpreterLoop.ts) for its own: a traced
 * token transfer cost about half as much again. Here the LOG handlers
 * (opcodeHandlers.ts) and SELFDESTRUCT tell the observer set for their EVM,
 * if any, as they run; with none set they do what they did.
 *
 * A step event comes before its opcode runs, a call here once the opcode's
 * gas is paid: an opcode that then fails (out of gas, a static frame) fails
 * its frame, and a failed frame's logs and transfers are dropped either way.
 */
export type OpcodeObserver = {
  /** A LOG0-LOG4 of the running frame emitted its log. */
  log(): void
  /** A SELFDESTRUCT of `address` to `beneficiary` (the stack word), paying `balance`. */
  selfdestruct(address: { toString(): string }, beneficiary: bigint, balance: bigint): void
}

const observers = new WeakMap<object, OpcodeObserver>()

/** Sets (or, with undefined, removes) the observer of `evm`'s opcodes. */
export function observeOpcodes(evm: object, observer: OpcodeObserver | undefined) {
  if (observer) observers.set(evm, observer)
  else observers.delete(evm)
}

/** The observer of `evm`'s opcodes, if one is set. */
export const observerOf = (evm: object): OpcodeObserver | undefined => observers.get(evm)

type RunState = {
  stack: { peek(n?: number): bigint[] }
  stateManager: { getAccount(address: unknown): Promise<{ balance: bigint } | undefined> }
  interpreter: { _evm: object; getAddress(): { toString(): string } }
}
type Handler = (runState: RunState, common: unknown) => unknown

let applied = false

/** SELFDESTRUCT tells its EVM's observer, then runs the library's handler unchanged. */
export function applySelfdestructObserver() {
  if (applied) return
  applied = true
  const { handlers } = evmInternals.functions as { handlers: Map<number, Handler> }
  const selfdestruct = handlers.get(0xff)!
  handlers.set(0xff, async (runState, common) => {
    const observer = observers.get(runState.interpreter._evm)
    if (observer) {
      const address = runState.interpreter.getAddress()
      const account = await runState.stateManager.getAccount(address)
      observer.selfdestruct(address, runState.stack.peek()[0]!, account?.balance ?? 0n)
    }
    return selfdestruct(runState, common)
  })
}

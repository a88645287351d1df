import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import { Address, type Address as EthAddress, bigIntToAddressBytes, equalsBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { systemContracts } from './systemContracts.js'
import { patchActive } from './patches/registry.js'
import { ViewStateManager } from './viewState.js'

/**
 * At the end of every Prague block, ethereumjs's BlockBuilder runs the
 * EIP-7002 (withdrawal) and EIP-7251 (consolidation) request contracts as
 * full EVM calls from the system address, each followed by a state flush:
 * about half the cost of sealing an empty block. On a dev chain the queues
 * are almost always empty, and an empty queue's call provably changes nothing.
 *
 * The contracts (bytecode as the EIPs give it, see systemContracts.ts) keep
 * excess (slot 0), count (slot 1), queue head (slot 2) and queue tail (slot 3).
 * Called by the system address with no data they dequeue tail - head records
 * (reading slots 4 and up only for those), store head and tail (both 0 once the
 * queue is drained), store the new excess (previous excess + count - target
 * when above the target, else 0; the inhibitor 2^256-1 counts as 0) and count 0,
 * and return the dequeued records. With all four slots 0 that stores 0 into
 * four slots that already hold 0 and returns nothing. The rest of the call
 * (system account nonce, zero-value transfer) ethereumjs undoes itself by
 * restoring the system account after the call. So when the code is the EIPs'
 * code and the four slots are 0, answering "no requests" without running
 * the call gives the same state root and the same requests hash.
 *
 * Anything else (a queued request, the inhibitor before the first dequeue,
 * code replaced by a cheat, calldata or value) runs the real call.
 */

const queueSlots = [0, 1, 2, 3].map((slot) => setLengthLeft(Uint8Array.of(slot), 32))

let queueContracts: { address: Uint8Array; code: Uint8Array }[] | undefined
/** The two queue contracts, decoded at the first seal that asks (not when the engine loads: every start's CPU). */
const queues = () =>
  (queueContracts ??= systemContracts
    .filter((c) => /EIP-(7002|7251)\)/.test(c.name))
    .map((c) => ({ address: hexToBytes(c.address), code: hexToBytes(c.code) })))

type RunCall = VM['evm']['runCall']
type RunCallOpts = Parameters<RunCall>[0]

async function isIdleQueueCall(vm: VM, systemAddress: Uint8Array, opts: RunCallOpts): Promise<boolean> {
  if (opts.message !== undefined || opts.caller === undefined || opts.to === undefined) return false
  if ((opts.data?.length ?? 0) !== 0 || (opts.value ?? 0n) !== 0n) return false
  if (!equalsBytes(opts.caller.bytes, systemAddress)) return false
  const queue = queues().find((q) => equalsBytes(q.address, (opts.to as EthAddress).bytes))
  if (!queue) return false
  const state = vm.stateManager
  if (!equalsBytes(await state.getCode(opts.to), queue.code)) return false
  for (const slot of queueSlots) if ((await state.getStorage(opts.to, slot)).length !== 0) return false
  return true
}

const activeQueues = [
  [7002, 'withdrawalRequestPredeployAddress'],
  [7251, 'consolidationRequestPredeployAddress'],
] as const

/**
 * Whether BlockBuilder.build's EIP-7002 and EIP-7251 request accumulation
 * would yield no requests and leave the state as it was: for each active
 * queue, either no account at its address (accumulateRequests answers an
 * empty request without a call) or a call `isIdleQueueCall` would answer.
 *
 * On a view's VM (eth_simulateV1's blocks) a queue the request has not
 * touched is the view's own, so its answer is read once per view root
 * (`idleAtBase`) instead of through the request's journaled state at every
 * simulated block: ten state reads, about a tenth of a one-call simulation.
 * Once that answer is known it is given at once (a boolean, not a promise):
 * a simulated block then asks without an await.
 */
export function requestQueuesIdle(vm: VM): boolean | Promise<boolean> {
  const common = vm.common
  const state = vm.stateManager as MerkleStateManager
  for (let i = 0; i < activeQueues.length; i++) {
    const [eip, param] = activeQueues[i]!
    if (!common.isActivatedEIP(eip)) continue
    const queue = queueAddressOf(common.param(param))
    const base = state instanceof ViewStateManager ? state.baseFor(queue.address) : undefined
    const idle = base === undefined ? queueIdle(state, queue.address) : idleAtBase(base, queue)
    if (idle === false) return false
    if (idle !== true) return idle.then((answer) => answer && requestQueuesIdleFrom(vm, i + 1))
  }
  return true
}

/** requestQueuesIdle for the queues from index `from` on, awaited. */
async function requestQueuesIdleFrom(vm: VM, from: number): Promise<boolean> {
  const common = vm.common
  const state = vm.stateManager as MerkleStateManager
  for (const [eip, param] of activeQueues.slice(from)) {
    if (!common.isActivatedEIP(eip)) continue
    const queue = queueAddressOf(common.param(param))
    const base = state instanceof ViewStateManager ? state.baseFor(queue.address) : undefined
    if (!(await (base === undefined ? queueIdle(state, queue.address) : idleAtBase(base, queue)))) return false
  }
  return true
}

/** A queue's address parsed once per parameter value (the parameter is the address as a number), with its hex key. */
type QueueAddress = { address: EthAddress; key: string }
const queueAddresses = new Map<bigint, QueueAddress>()
function queueAddressOf(param: bigint): QueueAddress {
  let queue = queueAddresses.get(param)
  if (queue === undefined) {
    const address = new Address(bigIntToAddressBytes(param))
    queueAddresses.set(param, (queue = { address, key: address.toString() }))
  }
  return queue
}

/** No account at `address`, or the EIP's queue contract with all four queue slots zero. */
async function queueIdle(state: MerkleStateManager, address: EthAddress): Promise<boolean> {
  if ((await state.getAccount(address)) === undefined) return true
  const queue = queues().find((q) => equalsBytes(q.address, address.bytes))
  if (!queue || !equalsBytes(await state.getCode(address), queue.code)) return false
  for (const slot of queueSlots) if ((await state.getStorage(address, slot)).length !== 0) return false
  return true
}

/**
 * queueIdle of a read-only state (a view's reader, whose root never changes), once per state and address: the
 * answer itself once known, the read in flight until then.
 */
const idleByBase = new WeakMap<MerkleStateManager, Map<string, boolean | Promise<boolean>>>()
function idleAtBase(base: MerkleStateManager, queue: QueueAddress): boolean | Promise<boolean> {
  let byAddress = idleByBase.get(base)
  if (byAddress === undefined) idleByBase.set(base, (byAddress = new Map()))
  const { key } = queue
  let idle = byAddress.get(key)
  if (idle === undefined) {
    const reading = queueIdle(base, queue.address)
    byAddress.set(key, (idle = reading))
    reading.then(
      (answer) => {
        if (byAddress.get(key) === reading) byAddress.set(key, answer)
      },
      // A failed read (an upstream's, on a fork) is not an answer: the next block asks again.
      () => byAddress.delete(key),
    )
  }
  return idle
}

/**
 * Runs `build` (a BlockBuilder.build on `vm`) with the idle-queue shortcut:
 * during it, a system call to an empty request queue returns no requests
 * without running. Only the calls `build` makes are affected; the VM's
 * `runCall` is restored afterwards.
 */
export async function withIdleRequestQueues<T>(vm: VM, build: () => Promise<T>): Promise<T> {
  const evm = vm.evm
  if (!patchActive('idle-request-queues') || (!vm.common.isActivatedEIP(7002) && !vm.common.isActivatedEIP(7251))) return build()
  const systemAddress = bigIntToAddressBytes(vm.common.param('systemAddress'))
  const original = evm.runCall
  const own = Object.hasOwn(evm, 'runCall')
  evm.runCall = async function (this: typeof evm, opts) {
    if (await isIdleQueueCall(vm, systemAddress, opts)) {
      return { execResult: { returnValue: new Uint8Array(0), executionGasUsed: 0n, gas: opts.gasLimit ?? 0n } } as never
    }
    return original.call(this, opts)
  } as RunCall
  try {
    return await build()
  } finally {
    // Assigned back even when it was the prototype's: a delete would turn the EVM object into a dictionary
    // (slow property reads in every later call on it).
    evm.runCall = own ? original : (Object.getPrototypeOf(evm) as typeof evm).runCall
  }
}

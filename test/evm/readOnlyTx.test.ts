import type { VM } from '@ethereumjs/vm'
import { runTx } from '@ethereumjs/vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CallRequest, callBlock, createCallTx, toCallOutcome } from '../../src/evm/execute.js'
import { runReadOnlyTx } from '../../src/evm/readOnlyTx.js'
import { type Devnet, createDevnet } from '../../src/index.js'
import { stockEngine } from './installEngine.js'

/*
 * The read-only path (readOnlyTx.ts) must give what runTx gives for every
 * call it takes: same gas, refund, return data, error, logs and created
 * address, with the same state visible during execution (sender charged up
 * front and its nonce raised).
 */

// Runtime code: returns BALANCE(CALLER), SELFBALANCE, GASPRICE and GAS as 32-byte words, after setting and
// clearing a slot (an SSTORE refund) and setting another, and logs one event.
const probe =
  '0x' +
  ['33', '31', '6000', '52', '47', '6020', '52', '3a', '6040', '52', '6001', '6000', '55', '6000', '6000', '55', '6001', '6001', '55',
    '5a', '6060', '52', '6007', '6000', '6000', 'a1', '6080', '6000', 'f3'].join('')
// Reverts with 0xdeadbeef.
const reverter = '0x63deadbeef6000526004601cfd'

const target = '0x00000000000000000000000000000000000fee01'
const reverting = '0x00000000000000000000000000000000000fee02'

let devnet: Devnet
let vm: VM
let release: () => void

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  await devnet.request({ method: 'anvil_setCode', params: [target, probe] } as never)
  await devnet.request({ method: 'anvil_setBalance', params: [target, '0x1234'] } as never)
  await devnet.request({ method: 'anvil_setCode', params: [reverting, reverter] } as never)
  await devnet.seal()
  const view = devnet.node.views.resolve({ tag: 'latest' })
  // Hold the view's VM for the whole file: no request runs on it meanwhile.
  await new Promise<void>((started) => {
    void devnet.node.views.withVm(view, (held) => {
      vm = held
      started()
      return new Promise<void>((done) => (release = done))
    })
  })
})

afterAll(async () => {
  release?.()
  await devnet?.close?.()
})

async function both(request: CallRequest) {
  const view = devnet.node.views.resolve({ tag: 'latest' })
  const feeless = request.gasPrice === undefined && request.maxFeePerGas === undefined
  const block = callBlock(devnet.node.common, view.env, feeless)
  const sender = await vm.stateManager.getAccount((await import('@ethereumjs/util')).createAddressFromString(request.from ?? target))
  const gas = request.gas ?? 1_000_000n
  const run = async (fn: () => Promise<unknown>) => {
    await vm.stateManager.checkpoint()
    try {
      return await fn()
    } catch (error) {
      return { error: String((error as Error).message) }
    } finally {
      await vm.stateManager.revert()
    }
  }
  const tx = () => createCallTx(devnet.node.common, { ...request, gas }, { nonce: sender?.nonce ?? 0n, gas })
  const viaRunTx = () => runTx(vm, { tx: tx(), block, skipNonce: true, skipBalance: false, skipBlockGasLimitValidation: true, skipHardForkValidation: true })
  const reference = await run(async () => shape(toCallOutcome(await viaRunTx())))
  const fast = await run(async () => {
    const t = tx()
    return shape(toCallOutcome(await runReadOnlyTx(vm, t, block, () => { throw new Error('fell back') })))
  })
  return { reference, fast }
}

const shape = (o: ReturnType<typeof toCallOutcome>) => ({
  status: o.status,
  gasUsed: o.gasUsed,
  maxUsedGas: o.maxUsedGas,
  returnData: o.returnData,
  logs: o.logs,
  reverted: o.reverted,
  error: o.error,
  createdAddress: o.createdAddress,
})

describe.skipIf(stockEngine)('read-only call path', () => {
  const from = (d: Devnet) => d.accounts[0]!.address

  it('matches runTx for a fee-less call: balances, refunds, logs, gas left', async () => {
    const { reference, fast } = await both({ from: from(devnet), to: target, data: '0x01' })
    expect((reference as { status: number }).status).toBe(1)
    expect(fast).toEqual(reference)
  })

  it('matches runTx when the call pays fees (the sender is charged up front, visible to BALANCE)', async () => {
    for (const request of [
      { from: from(devnet), to: target, data: '0x01', maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n },
      { from: from(devnet), to: target, data: '0x01', gasPrice: 2_000_000_000n },
      { from: from(devnet), to: target, data: '0x01', gasPrice: 2_000_000_000n, accessList: [{ address: target, storageKeys: [`0x${'00'.repeat(32)}` as const] }] },
      { from: from(devnet), to: target, value: 5n, data: `0x${'01'.repeat(3000)}` as const },
    ] as CallRequest[]) {
      const { reference, fast } = await both(request)
      expect((reference as { status: number }).status).toBe(1)
      expect(fast).toEqual(reference)
    }
  })

  it('matches runTx for a revert, out of gas, a contract creation and a plain transfer', async () => {
    for (const request of [
      { from: from(devnet), to: reverting, data: '0x' },
      { from: from(devnet), to: target, data: '0x01', gas: 30_000n },
      { from: from(devnet), data: `0x600a600c600039600a6000f3${probe.slice(2, 22)}` as const },
      { from: from(devnet), to: '0x00000000000000000000000000000000000000aa', value: 1n },
    ] as CallRequest[]) {
      const { reference, fast } = await both(request)
      expect(fast).toEqual(reference)
    }
    const { reference } = await both({ from: from(devnet), to: reverting, data: '0x' })
    expect(reference).toMatchObject({ status: 0, reverted: true, returnData: '0xdeadbeef' })
  })
})

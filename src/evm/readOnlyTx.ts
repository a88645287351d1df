import type { Block } from '@ethereumjs/block'
import { Capability, type TypedTransaction, getCalldataFloorGas } from '@ethereumjs/tx'
import { Account, bytesToUnprefixedHex } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import { patchActive } from './patches/registry.js'

/**
 * ethereumjs's runTx for a transaction whose state is thrown away afterwards
 * (eth_call, eth_estimateGas): the same steps up to the end of execution, in
 * the same order, and none after it.
 *
 * What a call's caller sees is decided before and during execution: the
 * warm addresses and slots, intrinsic gas, the sender charged the gas up
 * front and its nonce raised (a contract can read both), then the message,
 * then the gas used after refunds and the EIP-7623 floor. runTx goes on to
 * refund the sender, pay the coinbase, delete self-destructed and touched
 * empty accounts, build a bloom and a receipt and emit `afterTx`: state and
 * records that a reverted call discards, a fifth of a token balanceOf.
 *
 * Whatever this path does not cover goes to runTx itself, so errors keep
 * runTx's exact wording: a transaction that fails a pre-execution check
 * (intrinsic gas, fee cap below the base fee, funds), blob and EIP-7702
 * transactions, access-list reporting, `beforeTx`/`afterTx` listeners, and
 * forks with EIPs whose steps are left out here (EIP-8037 state gas, EIP-7928
 * block access lists, EIP-7864 witnesses, EIP-2780, EIP-7708 logs, Amsterdam
 * and later).
 *
 * The sender's EIP-3607 check is not made: this is only for calls, which
 * geth lets a contract make (SkipFromEOACheck).
 */
export async function runReadOnlyTx(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  /** runTx as the caller would run it, for what this path does not cover. */
  fallback: () => Promise<RunTxResult>,
): Promise<RunTxResult> {
  // Without a base fee in the block runTx would read its default header's: left to runTx.
  if (!patchActive('read-only-tx') || !eligible(vm, tx) || block.header.baseFeePerGas === undefined) return fallback()
  const common = vm.common
  const evm = vm.evm as VM['evm'] & Internals
  const journal = evm.journal
  const state = vm.stateManager
  const caller = tx.getSenderAddress()
  const baseFee = block.header.baseFeePerGas

  await journal.cleanup()
  // runTx's pre-execution checks, answered before anything changes: a failing one goes to runTx for its error.
  const intrinsicGas = tx.getIntrinsicGas()
  const floorCost = getCalldataFloorGas(tx, caller)
  const minGasLimit = intrinsicGas > floorCost ? intrinsicGas : floorCost
  if (tx.gasLimit < minGasLimit) return fallback()
  const is1559 = tx.supports(Capability.EIP1559FeeMarket)
  if (common.isActivatedEIP(1559)) {
    const maxFeePerGas = is1559 ? (tx as { maxFeePerGas: bigint }).maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice
    if (maxFeePerGas < baseFee) return fallback()
  }
  const sender = (await state.getAccount(caller)) ?? new Account()
  if (sender.balance < tx.getUpfrontCost(baseFee)) return fallback()
  const maxCost = tx.value + (is1559 ? tx.gasLimit * (tx as { maxFeePerGas: bigint }).maxFeePerGas : 0n)
  if (sender.balance < maxCost) return fallback()

  await journal.checkpoint()
  if (tx.supports(Capability.EIP2718TypedTransaction) && common.isActivatedEIP(2718)) {
    for (const [addressBytes, slots] of (tx as { accessList: [Uint8Array, Uint8Array[]][] }).accessList) {
      const address = bytesToUnprefixedHex(addressBytes)
      journal.addAlwaysWarmAddress(address, true)
      for (const slot of slots) journal.addAlwaysWarmSlot(address, bytesToUnprefixedHex(slot), true)
    }
  }
  try {
    if (common.isActivatedEIP(2929)) {
      for (const [address] of evm.precompiles.entries()) journal.addAlwaysWarmAddress(address)
      journal.addAlwaysWarmAddress(caller.toString())
      if (tx.to !== undefined) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(tx.to.bytes))
      if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes))
    }
    evm.eip7928CallPostTargetOog = false

    let gasPrice: bigint
    if (is1559) gasPrice = (tx as unknown as { getEffectivePriorityFee(baseFee: bigint): bigint }).getEffectivePriorityFee(baseFee) + baseFee
    else gasPrice = (tx as { gasPrice: bigint }).gasPrice
    // Gas bought up front and the nonce raised: runTx puts the account twice, once for each; the second put wins.
    const account = (await state.getAccount(caller)) ?? new Account()
    account.balance -= tx.gasLimit * gasPrice
    account.nonce += 1n
    await journal.putAccount(caller, account)

    await journal.checkpoint()
    let results: RunTxResult
    try {
      results = (await evm.runCall({
        block,
        gasPrice,
        caller,
        gasLimit: tx.gasLimit - intrinsicGas,
        to: tx.to,
        value: tx.value,
        data: tx.data,
        skipNonceIncrement: true,
      } as never)) as unknown as RunTxResult
    } catch (e) {
      await journal.revert()
      throw e
    }
    if (evm.eip2780PrepOog === true) await journal.revert()
    else await journal.commit()
    evm.eip7928CallPostTargetOog = false
    evm.createTxTargetAlive = false

    const exec = results.execResult
    const beforeRefund = exec.executionGasUsed + intrinsicGas
    results.totalGasSpent = beforeRefund
    let gasRefund = exec.gasRefund ?? 0n
    results.gasRefund = gasRefund
    if (gasRefund !== 0n) {
      const maxRefund = beforeRefund / common.param('maxRefundQuotient')
      gasRefund = gasRefund < maxRefund ? gasRefund : maxRefund
      results.totalGasSpent -= gasRefund
    }
    if (common.isActivatedEIP(7623) && results.totalGasSpent < floorCost) {
      results.gasRefund = 0n
      results.totalGasSpent = floorCost
    }
    results.blockGasSpent = common.isActivatedEIP(7778)
      ? beforeRefund > floorCost
        ? beforeRefund
        : floorCost
      : results.totalGasSpent
    results.amountSpent = results.totalGasSpent * gasPrice
    await journal.commit()
    return results
  } catch (e) {
    await journal.revert()
    throw e
  } finally {
    if (common.isActivatedEIP(2929)) journal.cleanJournal()
    state.originalStorageCache.clear()
  }
}

type Internals = {
  eip7928CallPostTargetOog?: boolean
  createTxTargetAlive?: boolean
  eip2780PrepOog?: boolean
  _optsCached: { profiler?: { enabled?: boolean } }
}

/** EIPs whose runTx steps this path leaves out; a fork with any of them goes to runTx. */
const uncovered = [8037, 7928, 7864, 6800, 2780, 7708, 8246]

function eligible(vm: VM, tx: TypedTransaction) {
  if (tx.supports(Capability.EIP7702EOACode)) return false
  if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2) return false
  const events = vm.events as unknown as { listenerCount(name: string): number }
  if (events.listenerCount('beforeTx') > 0 || events.listenerCount('afterTx') > 0) return false
  if ((vm as unknown as { _opts: { profilerOpts?: { reportAfterTx?: boolean } } })._opts.profilerOpts?.reportAfterTx) return false
  if ((vm.evm as unknown as Internals)._optsCached.profiler?.enabled === true) return false
  if (tx.value < 0n) return false
  const common = vm.common
  for (const eip of uncovered) if (common.isActivatedEIP(eip)) return false
  return true
}

import { type Block, createBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVMResult } from '@ethereumjs/evm'
import {
  type TypedTransaction,
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} from '@ethereumjs/tx'
import { createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { type RunTxResult, type VM, runTx } from '@ethereumjs/vm'
import type { Address, Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import { encodeCallTx1559, fastCallTx1559, primeDataGas } from './callTx.js'
import { bytesOfHex, hexOf } from './hexKeys.js'
import { runReadOnlyTx } from './readOnlyTx.js'
import { rememberSerialized } from './serializedMemo.js'
import type { EvmLog } from './types.js'

/** A call object with every field decoded; what eth_call, eth_estimateGas and eth_simulateV1 execute. */
export type CallRequest = {
  from?: Address | undefined
  to?: Address | null | undefined
  gas?: bigint | undefined
  gasPrice?: bigint | undefined
  maxFeePerGas?: bigint | undefined
  maxPriorityFeePerGas?: bigint | undefined
  maxFeePerBlobGas?: bigint | undefined
  value?: bigint | undefined
  data?: Hex | undefined
  nonce?: bigint | undefined
  accessList?: { address: Address; storageKeys: Hex[] }[] | undefined
  authorizationList?:
    | { chainId: bigint; address: Address; nonce: bigint; yParity: bigint; r: bigint; s: bigint }[]
    | undefined
  blobVersionedHashes?: Hex[] | undefined
  type?: number | undefined
  chainId?: bigint | undefined
}

/** The block fields a call runs under. */
export type BlockEnv = {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint | undefined
  coinbase: Address
  prevRandao: Hex
  excessBlobGas: bigint | undefined
  parentHash: Hex
  parentBeaconBlockRoot: Hex | undefined
}

const zero32 = `0x${'00'.repeat(32)}` as Hex

/** A block object carrying `env` (and `transactions`, for a replay), for runTx and the EVM's block context. */
export function blockFromEnv(common: Common, env: BlockEnv, transactions: TypedTransaction[] = []): Block {
  const header: Record<string, unknown> = {
    number: env.number,
    timestamp: env.timestamp,
    gasLimit: env.gasLimit,
    coinbase: hexToBytes(env.coinbase),
    mixHash: hexToBytes(env.prevRandao),
    parentHash: hexToBytes(env.parentHash),
    difficulty: 0n,
  }
  if (env.baseFeePerGas !== undefined) header.baseFeePerGas = env.baseFeePerGas
  if (env.excessBlobGas !== undefined) {
    header.excessBlobGas = env.excessBlobGas
    header.blobGasUsed = 0n
  }
  if (common.isActivatedEIP(4788))
    header.parentBeaconBlockRoot = hexToBytes(env.parentBeaconBlockRoot ?? zero32)
  return createBlock(
    { header, transactions },
    { common, setHardfork: false, skipConsensusFormatValidation: true, freeze: false },
  )
}

/*
 * By common, then env: an entry lives only while both do. A sealed block's env
 * lives as long as the block, the common (a call VM's) only as long as its
 * view is cached; keyed by env alone, every block kept its last call VM's
 * common and two blocks built on it for good.
 */
const callBlocks = new WeakMap<Common, WeakMap<BlockEnv, { withFees?: Block; feeless?: Block }>>()

/**
 * The block a call runs in, built once per env (a view's env object lives as
 * long as its block or pre-confirmation) rather than per call: creating a
 * block validates and copies its header, a fifth of a token balanceOf. With
 * `feeless` the base fee is zero, as geth runs calls that name no fee.
 * runTx only reads the block.
 */
export function callBlock(common: Common, env: BlockEnv, feeless: boolean): Block {
  let byEnv = callBlocks.get(common)
  if (!byEnv) callBlocks.set(common, (byEnv = new WeakMap()))
  let entry = byEnv.get(env)
  if (!entry) byEnv.set(env, (entry = {}))
  if (feeless) {
    entry.feeless ??= blockFromEnv(common, { ...env, baseFeePerGas: env.baseFeePerGas === undefined ? undefined : 0n })
    return entry.feeless
  }
  entry.withFees ??= blockFromEnv(common, env)
  return entry.withFees
}

/** Whether the call names any fee field; geth runs fee-less calls with a zero base fee. */
export const hasFees = (request: CallRequest) =>
  request.gasPrice !== undefined ||
  request.maxFeePerGas !== undefined ||
  request.maxPriorityFeePerGas !== undefined

/**
 * Builds an unsigned transaction from a call object and makes it report
 * `from` as its sender: calls are never signed (geth executes a message, not a
 * transaction). The type follows geth's `ToTransaction`: an authorization list
 * makes it 0x4, blob hashes 0x3, a gas price legacy (or 0x1 with an access
 * list), otherwise 0x2.
 */
export function createCallTx(
  common: Common,
  request: CallRequest,
  defaults: { nonce: bigint; gas: bigint },
  /** `request.from` already parsed (the caller read its account): not parsed again. */
  sender?: ReturnType<typeof createAddressFromString>,
): TypedTransaction {
  const base = {
    nonce: request.nonce ?? defaults.nonce,
    gasLimit: request.gas ?? defaults.gas,
    // As bytes (Node's decoder): the transaction would otherwise check the hex string against a regular expression and decode it.
    to: request.to ? bytesOfHex(request.to) : undefined,
    value: request.value ?? 0n,
    data: request.data ? bytesOfHex(request.data) : new Uint8Array(),
  }
  const accessList = request.accessList?.map((item) => ({
    address: item.address,
    storageKeys: item.storageKeys,
  }))
  const options = { common, freeze: false, allowUnlimitedInitCodeSize: false }
  let tx: TypedTransaction
  const type =
    request.type ??
    (request.authorizationList
      ? 4
      : request.blobVersionedHashes
        ? 3
        : request.gasPrice !== undefined
          ? accessList
            ? 1
            : 0
          : 2)
  const fee1559 = {
    maxFeePerGas: request.maxFeePerGas ?? request.gasPrice ?? 0n,
    maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? request.maxFeePerGas ?? request.gasPrice ?? 0n,
  }
  // A tip above the fee cap is invalid; calls that name only a cap tip nothing more than it.
  if (fee1559.maxPriorityFeePerGas > fee1559.maxFeePerGas && request.maxPriorityFeePerGas === undefined)
    fee1559.maxPriorityFeePerGas = fee1559.maxFeePerGas
  switch (type) {
    case 0:
      tx = createLegacyTx({ ...base, gasPrice: request.gasPrice ?? 0n }, options)
      break
    case 1:
      tx = createAccessList2930Tx(
        { ...base, gasPrice: request.gasPrice ?? 0n, accessList: accessList ?? [] },
        options,
      )
      break
    case 3:
      tx = createBlob4844Tx(
        {
          ...base,
          ...fee1559,
          accessList: accessList ?? [],
          maxFeePerBlobGas: request.maxFeePerBlobGas ?? 0n,
          blobVersionedHashes: request.blobVersionedHashes ?? [],
          to: base.to ?? '0x0000000000000000000000000000000000000000',
        },
        options,
      )
      break
    case 4:
      tx = createEOACode7702Tx(
        {
          ...base,
          ...fee1559,
          accessList: accessList ?? [],
          authorizationList: (request.authorizationList ?? []).map((a) => ({
            chainId: `0x${a.chainId.toString(16)}`,
            address: a.address,
            nonce: `0x${a.nonce.toString(16)}`,
            yParity: `0x${a.yParity.toString(16)}`,
            r: `0x${a.r.toString(16)}`,
            s: `0x${a.s.toString(16)}`,
          })) as never,
          to: base.to ?? '0x0000000000000000000000000000000000000000',
        },
        options,
      )
      break
    default: {
      // Spelled out: a literal that spreads two objects takes V8's slow copy path (see evmFrames.ts), per call.
      const fields = {
        nonce: base.nonce,
        gasLimit: base.gasLimit,
        to: base.to,
        value: base.value,
        data: base.data,
        maxFeePerGas: fee1559.maxFeePerGas,
        maxPriorityFeePerGas: fee1559.maxPriorityFeePerGas,
      }
      tx = (!accessList && fastCallTx1559(fields, options)) || createFeeMarket1559Tx({ ...fields, accessList: accessList ?? [] }, options)
    }
  }
  const from = sender ?? createAddressFromString(request.from ?? '0x0000000000000000000000000000000000000000')
  return impersonate(tx, from)
}

/**
 * Freezes a call transaction whose fields are final, as the library freezes a transaction by default: it then
 * keeps its data gas and hash (tx.cache) instead of counting the calldata again at each of runTx's
 * intrinsic-gas reads. An EIP-1559 call gets its serialized form written at once (encodeCallTx1559), for
 * the hash a simulated call reports, and its data gas counted (primeDataGas).
 */
export function freezeCallTx<T extends TypedTransaction>(tx: T): T {
  Object.freeze(tx)
  if (tx.type !== 2) return tx
  const encoded = encodeCallTx1559(tx as never)
  if (encoded !== undefined) rememberSerialized(tx, encoded, true)
  primeDataGas(tx as never)
  return tx
}

/** Makes an unsigned (or foreign) transaction report `from` as its sender. */
export function impersonate<T extends TypedTransaction>(
  tx: T,
  from: ReturnType<typeof createAddressFromString>,
): T {
  const patched = tx as T & { getSenderAddress(): typeof from; isSigned(): boolean }
  patched.getSenderAddress = () => from
  patched.isSigned = () => true
  return tx
}

/** What one executed call produced. */
export type CallOutcome = {
  status: 0 | 1
  /** Gas charged, after refunds. */
  gasUsed: bigint
  /** Gas the call needed before refunds: what eth_estimateGas and simulate's `maxUsedGas` report. */
  maxUsedGas: bigint
  returnData: Hex
  logs: EvmLog[]
  /** Set when the call reverted (REVERT opcode). */
  reverted: boolean
  /** The VM error (out of gas, invalid opcode, ...) when the call failed without REVERT. */
  error: string | undefined
  createdAddress: Address | undefined
  result: RunTxResult
}

export function toEvmLogs(logs: EVMResult['execResult']['logs']): EvmLog[] {
  // hexOf: the same strings as bytesToHex, without a rope of two characters per byte for every topic.
  return (logs ?? []).map(([address, topics, data]) => ({
    address: hexOf(address),
    topics: topics.map((topic) => hexOf(topic)),
    data: hexOf(data),
  }))
}

/** Turns a runTx result into a call outcome. */
export function toCallOutcome(result: RunTxResult): CallOutcome {
  const exception = result.execResult.exceptionError
  const reverted = exception?.error === 'revert'
  return {
    status: exception ? 0 : 1,
    gasUsed: result.totalGasSpent,
    maxUsedGas: result.totalGasSpent + result.gasRefund,
    returnData: bytesToHex(result.execResult.returnValue),
    logs: exception ? [] : toEvmLogs(result.execResult.logs),
    reverted,
    error: exception && !reverted ? exception.error : undefined,
    createdAddress: result.createdAddress ? (result.createdAddress.toString() as Address) : undefined,
    result,
  }
}

/**
 * Runs `tx` on `vm` in `block`. With `commit: false` the state is put back
 * afterwards, so a view's VM can serve any number of calls. Throws the VM's
 * validation error (nonce, funds, fee cap, intrinsic gas) as it is.
 */
export async function executeTx(
  vm: VM,
  block: Block,
  tx: TypedTransaction,
  options: {
    commit: boolean
    skipNonce?: boolean
    skipBalance?: boolean
    blockGasUsed?: bigint
    reportAccessList?: boolean
    /** Let a sender with code call (geth's SkipFromEOACheck for eth_call and friends). */
    skipSenderCodeCheck?: boolean
  },
): Promise<CallOutcome> {
  if (!options.commit) await vm.stateManager.checkpoint()
  let restore: (() => void) | undefined
  try {
    const run = async () => {
      if (options.skipSenderCodeCheck) restore = await passSenderCodeCheck(vm, tx.getSenderAddress())
      return runTx(vm, {
        tx,
        block,
        skipNonce: options.skipNonce ?? true,
        skipBalance: options.skipBalance ?? false,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList: options.reportAccessList ?? false,
        ...(options.blockGasUsed !== undefined ? { blockGasUsed: options.blockGasUsed } : {}),
      })
    }
    // A call whose state is put back, run as geth runs eth_call (no nonce check, no EOA check): runTx's
    // steps up to the end of execution only (readOnlyTx.ts), runTx itself for what that does not cover.
    const readOnly =
      !options.commit && options.skipSenderCodeCheck && options.skipNonce !== false && !options.skipBalance && !options.reportAccessList
    const result = readOnly ? await runReadOnlyTx(vm, tx, block, run) : await run()
    return toCallOutcome(result)
  } finally {
    restore?.()
    if (!options.commit) await vm.stateManager.revert()
  }
}

/**
 * geth applies EIP-3607 (no transactions from an address with code) when it
 * validates a transaction, but not to eth_call, eth_estimateGas or
 * eth_createAccessList (`SkipFromEOACheck`): a contract may be the caller of a
 * simulation. ethereumjs's runTx has no such switch; its check lets a sender
 * through when its code is an EIP-7702 delegation, and that check is the
 * first code read of the sender in runTx. So the first `getCode(sender)`
 * answers a delegation prefix, and every later read (the execution) the real
 * code. Forks before Prague have no delegation branch: there the check stays.
 * Returns the function that undoes the patch.
 */
async function passSenderCodeCheck(vm: VM, sender: ReturnType<TypedTransaction['getSenderAddress']>) {
  const state = vm.stateManager
  const code = await state.getCode(sender)
  // No code (the usual case) or a real delegation: runTx's check passes by itself, patch nothing.
  if (code.length === 0 || (code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00)) return () => {}
  const original = state.getCode
  // Assigned back rather than deleted (a delete turns the state manager into a dictionary: slow field reads after).
  const restore = () => {
    ;(state as { getCode: typeof state.getCode }).getCode = original
  }
  ;(state as { getCode: typeof state.getCode }).getCode = async (address) => {
    if (!address.equals(sender)) return original.call(state, address)
    restore()
    return Uint8Array.of(0xef, 0x01, 0x00)
  }
  return restore
}

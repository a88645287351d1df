import type { Hex } from 'viem'
import type { ExecutedTx, TypedTransaction } from '../node/engineTypes.js'
import type { StoredBlock } from '../node/chain.js'
import type { PreconfSnapshot } from '../node/preconf.js'

/**
 * `0x` and the lower-case hex of `bytes` (viem's bytesToHex gives the same string) in one native step: viem's
 * appends two characters per byte, a 514-character rope for each logs bloom (a block's and every receipt's).
 */
const bytesToHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`

/** Canonical JSON-RPC quantity: lowercase hex, no leading zeros. */
export const q = (value: bigint | number) => `0x${value.toString(16)}` as Hex

export const zeroHash = `0x${'00'.repeat(32)}` as Hex

/** Where a transaction sits, for the block fields of tx, receipt and log objects. */
export type Placement = {
  blockHash: Hex | null
  blockNumber: bigint | null
  blockTimestamp: bigint | null
  index: number | null
  baseFee: bigint | undefined
}

export function formatTx(tx: TypedTransaction, from: Hex, at: Placement) {
  const json = tx.toJSON() as Record<string, unknown>
  const out: Record<string, unknown> = {
    blockHash: at.blockHash,
    blockNumber: at.blockNumber === null ? null : q(at.blockNumber),
    blockTimestamp: at.blockTimestamp === null ? null : q(at.blockTimestamp),
    from,
    gas: q(tx.gasLimit),
  }
  if (at.blockNumber === null) delete out.blockTimestamp
  if ('maxFeePerGas' in tx) {
    // geth reports the effective price once mined, the fee cap while pending.
    const tip = tx.maxPriorityFeePerGas
    out.gasPrice = at.baseFee !== undefined && at.blockHash !== null
      ? q(at.baseFee + (tip < tx.maxFeePerGas - at.baseFee ? tip : tx.maxFeePerGas - at.baseFee))
      : q(tx.maxFeePerGas)
    out.maxFeePerGas = q(tx.maxFeePerGas)
    out.maxPriorityFeePerGas = q(tx.maxPriorityFeePerGas)
    if ('maxFeePerBlobGas' in tx) out.maxFeePerBlobGas = q((tx as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas)
  } else out.gasPrice = q((tx as { gasPrice: bigint }).gasPrice)
  out.hash = bytesToHex(tx.hash())
  out.input = bytesToHex(tx.data)
  out.nonce = q(tx.nonce)
  out.to = tx.to ? tx.to.toString() : null
  out.transactionIndex = at.index === null ? null : q(at.index)
  out.value = q(tx.value)
  out.type = q(tx.type)
  if (tx.type !== 0) out.accessList = json.accessList ?? []
  const chainId = tx.type !== 0 || tx.v === undefined || tx.v > 28n ? tx.common.chainId() : undefined
  if (chainId !== undefined) out.chainId = q(chainId)
  if (tx.type === 3) out.blobVersionedHashes = json.blobVersionedHashes
  if (tx.type === 4) out.authorizationList = (json.authorizationList as Record<string, Hex>[]).map(formatAuthorization)
  out.v = q(tx.v ?? 0n)
  out.r = q(tx.r ?? 0n)
  out.s = q(tx.s ?? 0n)
  if (tx.type !== 0) out.yParity = q(tx.v ?? 0n)
  return out
}

/** An EIP-7702 authorization with canonical quantities (ethereumjs' JSON gives raw byte hex: `0x`, `0x0c…`). */
const formatAuthorization = (a: Record<string, Hex>) => ({
  chainId: q(bytesHexToBigInt(a.chainId!)),
  address: a.address,
  nonce: q(bytesHexToBigInt(a.nonce!)),
  yParity: q(bytesHexToBigInt(a.yParity!)),
  r: q(bytesHexToBigInt(a.r!)),
  s: q(bytesHexToBigInt(a.s!)),
})

/** Reads a hex number where ethereumjs' empty `0x` (RLP zero) as 0. */
const bytesHexToBigInt = (hex: Hex) => (hex === '0x' ? 0n : BigInt(hex))

export function formatLog(
  log: { address: Hex; topics: Hex[]; data: Hex },
  at: { blockNumber: bigint; blockHash: Hex; blockTimestamp: bigint; txHash: Hex; txIndex: number; logIndex: number },
  removed = false,
) {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: q(at.blockNumber),
    transactionHash: at.txHash,
    transactionIndex: q(at.txIndex),
    blockHash: at.blockHash,
    blockTimestamp: q(at.blockTimestamp),
    logIndex: q(at.logIndex),
    removed,
  }
}

/** A receipt of a sealed transaction, or of a pre-confirmed one (zero block hash, pending number). */
export function formatReceipt(
  executed: ExecutedTx,
  at: { blockHash: Hex; blockNumber: bigint; blockTimestamp: bigint; index: number; firstLogIndex: number },
) {
  const { tx } = executed
  const out: Record<string, unknown> = {
    blockHash: at.blockHash,
    blockNumber: q(at.blockNumber),
    contractAddress: executed.contractAddress,
    cumulativeGasUsed: q(executed.cumulativeGasUsed),
    effectiveGasPrice: q(executed.effectiveGasPrice),
    from: executed.from,
    gasUsed: q(executed.gasUsed),
    logs: executed.logs.map((log, i) =>
      formatLog(log, {
        blockNumber: at.blockNumber,
        blockHash: at.blockHash,
        blockTimestamp: at.blockTimestamp,
        txHash: executed.hash,
        txIndex: at.index,
        logIndex: at.firstLogIndex + i,
      }),
    ),
    logsBloom: bytesToHex(executed.logsBloom),
    // Pre-Byzantium receipts (an imported chain) carry the post-state root instead of a status.
    ...('root' in executed && executed.root instanceof Uint8Array
      ? { root: bytesToHex(executed.root) }
      : { status: q(executed.status) }),
    to: tx.to ? tx.to.toString() : null,
    transactionHash: executed.hash,
    transactionIndex: q(at.index),
    type: q(tx.type),
  }
  if (executed.blobGasUsed !== undefined) out.blobGasUsed = q(executed.blobGasUsed)
  if (executed.blobGasPrice !== undefined) out.blobGasPrice = q(executed.blobGasPrice)
  return out
}

export function receiptOfBlock(block: StoredBlock, index: number) {
  return formatReceipt(block.txs[index]!, {
    blockHash: block.hash,
    blockNumber: block.number,
    blockTimestamp: block.block.header.timestamp,
    index,
    firstLogIndex: block.logOffsets[index]!,
  })
}

export function receiptOfPreconf(snapshot: PreconfSnapshot, index: number) {
  let firstLogIndex = 0
  for (let i = 0; i < index; i++) firstLogIndex += snapshot.txs[i]!.logs.length
  return formatReceipt(snapshot.txs[index]!, {
    blockHash: zeroHash,
    blockNumber: snapshot.number,
    blockTimestamp: snapshot.env.timestamp,
    index,
    firstLogIndex,
  })
}

/** A sealed block in geth's shape. */
export function formatBlock(stored: StoredBlock, full: boolean) {
  const { block } = stored
  const h = block.header
  const out: Record<string, unknown> = {}
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = q(h.baseFeePerGas)
  if (h.blobGasUsed !== undefined) out.blobGasUsed = q(h.blobGasUsed)
  out.difficulty = q(h.difficulty)
  if (h.excessBlobGas !== undefined) out.excessBlobGas = q(h.excessBlobGas)
  out.extraData = bytesToHex(h.extraData)
  out.gasLimit = q(h.gasLimit)
  out.gasUsed = q(h.gasUsed)
  out.hash = stored.hash
  out.logsBloom = bytesToHex(h.logsBloom)
  out.miner = h.coinbase.toString()
  out.mixHash = bytesToHex(h.mixHash)
  out.nonce = bytesToHex(h.nonce)
  out.number = q(h.number)
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot)
  out.parentHash = bytesToHex(h.parentHash)
  out.receiptsRoot = bytesToHex(h.receiptTrie)
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash)
  out.sha3Uncles = bytesToHex(h.uncleHash)
  out.size = q(stored.size ?? block.serialize().length)
  out.stateRoot = bytesToHex(h.stateRoot)
  out.timestamp = q(h.timestamp)
  if (h.difficulty > 0n || h.number === 0n && h.difficulty > 0n) out.totalDifficulty = undefined
  out.transactions = stored.txs.map((tx, index) =>
    full
      ? formatTx(tx.tx, tx.from, {
          blockHash: stored.hash,
          blockNumber: h.number,
          blockTimestamp: h.timestamp,
          index,
          baseFee: h.baseFeePerGas,
        })
      : tx.hash,
  )
  out.transactionsRoot = bytesToHex(h.transactionsTrie)
  out.uncles = []
  if (block.withdrawals !== undefined) {
    out.withdrawals = block.withdrawals.map((w) => ({
      index: q(w.index),
      validatorIndex: q(w.validatorIndex),
      address: w.address.toString(),
      amount: q(w.amount),
    }))
  }
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot)
  delete out.totalDifficulty
  return out
}

/**
 * The pending block as Base serves it: the block being built, hash zero,
 * number head+1, the pre-confirmed transactions so far. Never null.
 */
export function formatPendingBlock(snapshot: PreconfSnapshot, full: boolean, gasLimit: bigint) {
  const env = snapshot.env
  const out: Record<string, unknown> = {}
  if (env.baseFeePerGas !== undefined) out.baseFeePerGas = q(env.baseFeePerGas)
  if (env.excessBlobGas !== undefined) out.blobGasUsed = q(snapshot.txs.reduce((s, t) => s + (t.blobGasUsed ?? 0n), 0n))
  out.difficulty = '0x0'
  if (env.excessBlobGas !== undefined) out.excessBlobGas = q(env.excessBlobGas)
  out.extraData = '0x'
  out.gasLimit = q(gasLimit)
  out.gasUsed = q(snapshot.gasUsed)
  out.hash = zeroHash
  const bloom = new Uint8Array(256)
  for (const tx of snapshot.txs) for (let i = 0; i < 256; i++) bloom[i]! |= tx.logsBloom[i]!
  out.logsBloom = bytesToHex(bloom)
  out.miner = env.coinbase
  out.mixHash = env.prevRandao
  out.nonce = '0x0000000000000000'
  out.number = q(snapshot.number)
  if (env.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = env.parentBeaconBlockRoot
  out.parentHash = snapshot.parentHash
  out.sha3Uncles = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
  out.stateRoot = bytesToHex(snapshot.root)
  out.timestamp = q(env.timestamp)
  out.transactions = snapshot.txs.map((tx, index) =>
    full
      ? formatTx(tx.tx, tx.from, {
          blockHash: null,
          blockNumber: snapshot.number,
          blockTimestamp: env.timestamp,
          index,
          baseFee: env.baseFeePerGas,
        })
      : tx.hash,
  )
  out.uncles = []
  out.withdrawals = []
  return out
}

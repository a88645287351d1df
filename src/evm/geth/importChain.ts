import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import { createBlockchain } from '@ethereumjs/blockchain'
import { RLP } from '@ethereumjs/rlp'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import { createVM, type RunBlockResult, runBlock } from '@ethereumjs/vm'
import type { Hex } from 'viem'
import { getContractAddress } from 'viem/utils'
import type { EvmLog, ExecutedBlock, ExecutedTx } from '../types.js'
import { ChainImportError } from '../../errors/chainImport.js'
import type { GethChain } from './genesis.js'

/** An {@link ExecutedBlock} as {@link importChain} returns it. */
export type ImportedBlock = Omit<ExecutedBlock, 'txs'> & { txs: ImportedTx[] }

/** Options of {@link importChain}. */
export type ImportChainOptions = {
  /** Called after each block is executed and verified, with its number. */
  onBlock?: ((number: bigint) => void) | undefined
}

/**
 * Executes an RLP stream of blocks (geth's `export` format, e.g. a hive `chain.rlp`)
 * on top of `chain`: every transaction runs in a VM on `chain.stateManager`, and the
 * result is checked against each header's state root, receipts root, logs bloom,
 * gas used and requests hash.
 *
 * Afterwards `chain.stateManager` is at the head's state root, and the roots of all
 * earlier blocks stay readable (the in-memory trie keeps every node); `chain.common`
 * is set to the head's hardfork.
 *
 * @returns One {@link ExecutedBlock} per imported block, in order (genesis excluded); its
 *   txs are {@link ImportedTx}es, which add the pre-Byzantium receipt `root`.
 * @throws ChainImportError naming the block and the field, e.g. `block 12: state root mismatch (got 0x…, want 0x…)`;
 *   the state manager is then back at the last good block's state root.
 *
 * @example
 * ```ts
 * const chain = await loadGethGenesis(genesisJson)
 * const blocks = await importChain(chain, await readFile('chain.rlp'))
 * ```
 */
export async function importChain(
  chain: GethChain,
  rlp: Uint8Array,
  options: ImportChainOptions = {},
): Promise<ImportedBlock[]> {
  // The VM retargets its Common's hardfork block by block; work on a copy so the
  // caller's Common only moves once, to the head, at the end.
  const common = chain.common.copy()
  const blockchain = await createBlockchain({
    common: chain.common.copy(),
    genesisBlock: chain.genesisBlock,
    // PoW blocks carry ethash seals we cannot (and need not) verify; headers are
    // still checked against their parents (number, time, gas limit, base fee, blob gas).
    validateConsensus: false,
    validateBlocks: true,
  })
  const vm = await createVM({ common, stateManager: chain.stateManager, blockchain, setHardfork: true })

  const executed: ImportedBlock[] = []
  let parent = chain.genesisBlock
  let rest = rlp
  let index = 0
  while (rest.length > 0) {
    const number = parent.header.number + 1n
    let block: Block
    try {
      const decoded = RLP.decode(rest, true)
      rest = decoded.remainder
      block = createBlockFromBytesArray(decoded.data as Parameters<typeof createBlockFromBytesArray>[0], {
        common,
        setHardfork: true,
      })
    } catch (error) {
      throw new ChainImportError(`block ${number} (item ${index} of the RLP stream): cannot decode: ${message(error)}`)
    }
    if (block.header.number !== number)
      throw new ChainImportError(`block ${block.header.number}: number mismatch (want ${number}, the child of the previous block)`)
    const parentHash = bytesToHex(parent.hash())
    if (bytesToHex(block.header.parentHash) !== parentHash)
      throw new ChainImportError(
        `block ${number}: parent hash mismatch (got ${bytesToHex(block.header.parentHash)}, want ${parentHash})`,
      )

    let result: RunBlockResult
    try {
      // `generate` keeps runBlock from throwing on the first differing root, so we
      // can compare every field ourselves and say which one differs.
      result = await runBlock(vm, { block, generate: true })
    } catch (error) {
      await chain.stateManager.setStateRoot(parent.header.stateRoot)
      throw new ChainImportError(`block ${number}: execution failed: ${message(error)}`)
    }
    const mismatch = compare(block, result)
    if (mismatch !== undefined) {
      await chain.stateManager.setStateRoot(parent.header.stateRoot)
      throw new ChainImportError(`block ${number}: ${mismatch}`)
    }
    await blockchain.putBlock(block)
    executed.push({ block, txs: executedTxs(block, result) })
    options.onBlock?.(number)
    parent = block
    index++
  }
  chain.common.setHardforkBy({ blockNumber: parent.header.number, timestamp: parent.header.timestamp })
  return executed
}

/** The first header field the execution disagrees with, as a message, or undefined. */
function compare(block: Block, result: RunBlockResult): string | undefined {
  const { header } = block
  // Gas used first: when it differs, the roots differ too and say less.
  const fields: [string, string, string][] = [
    ['gas used', String(result.gasUsed), String(header.gasUsed)],
    ['state root', bytesToHex(result.stateRoot), bytesToHex(header.stateRoot)],
    ['receipts root', bytesToHex(result.receiptsRoot), bytesToHex(header.receiptTrie)],
    ['logs bloom', bytesToHex(result.logsBloom), bytesToHex(header.logsBloom)],
  ]
  if (header.requestsHash !== undefined || result.requestsHash !== undefined)
    fields.push([
      'requests hash',
      result.requestsHash === undefined ? 'none' : bytesToHex(result.requestsHash),
      header.requestsHash === undefined ? 'none' : bytesToHex(header.requestsHash),
    ])
  for (const [name, got, want] of fields)
    if (got !== want) return `${name} mismatch (got ${got}, want ${want})`
  return undefined
}

/**
 * An {@link ExecutedTx} of an imported block. Pre-Byzantium receipts commit to the
 * state root after the transaction instead of a status: geth shows it as the
 * receipt's `root`, and the receipts trie (debug_getRawReceipts) encodes it.
 */
export type ImportedTx = ExecutedTx & {
  /** Post-transaction state root, for receipts before Byzantium only. */
  root?: Uint8Array | undefined
}

/** Receipts data of a block's transactions, from the run results. */
function executedTxs(block: Block, result: RunBlockResult): ImportedTx[] {
  const baseFee = block.header.baseFeePerGas
  const blobGasPrice = block.header.excessBlobGas !== undefined ? block.header.getBlobGasPrice() : undefined
  let previousCumulative = 0n
  return block.transactions.map((tx, i) => {
    const run = result.results[i]
    const receipt = result.receipts[i]
    if (run === undefined || receipt === undefined)
      throw new ChainImportError(`block ${block.header.number}: no execution result for transaction ${i}`)
    const from = tx.getSenderAddress().toString().toLowerCase() as Hex
    const cumulativeGasUsed = receipt.cumulativeBlockGasUsed
    const gasUsed = cumulativeGasUsed - previousCumulative
    previousCumulative = cumulativeGasUsed
    const logs: EvmLog[] = receipt.logs.map(([address, topics, data]) => ({
      address: bytesToHex(address) as Hex,
      topics: topics.map((topic) => bytesToHex(topic) as Hex),
      data: bytesToHex(data) as Hex,
    }))
    // Pre-Byzantium receipts carry an intermediate state root instead of a status;
    // the outcome is still known from the run.
    const status: 0 | 1 = 'status' in receipt ? receipt.status : run.execResult.exceptionError === undefined ? 1 : 0
    const isBlobTx = 'blobGasUsed' in receipt
    const root = 'stateRoot' in receipt ? { root: receipt.stateRoot } : {}
    return {
      tx,
      hash: bytesToHex(tx.hash()) as Hex,
      from,
      status,
      gasUsed,
      cumulativeGasUsed,
      effectiveGasPrice: effectiveGasPrice(tx, baseFee),
      // geth reports the would-be address for every creation, failed or not
      contractAddress:
        tx.to === undefined ? (getContractAddress({ from, nonce: tx.nonce }).toLowerCase() as Hex) : null,
      logs,
      ...(isBlobTx ? { blobGasUsed: receipt.blobGasUsed, blobGasPrice: receipt.blobGasPrice ?? blobGasPrice } : {}),
      logsBloom: receipt.bitvector,
      ...root,
    }
  })
}

/** What the sender paid per gas: the gas price, or base fee plus the capped tip. */
function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!tx.supports(Capability.EIP1559FeeMarket) || baseFee === undefined)
    return 'gasPrice' in tx ? tx.gasPrice : 0n
  return baseFee + tx.getEffectivePriorityFee(baseFee)
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The hashes of an `engine_forkchoiceUpdated` request, as hive's `headfcu.json` holds them. */
export type Forkchoice = {
  head: Hex
  safe: Hex
  finalized: Hex
}

/**
 * Reads the forkchoice of a hive `headfcu.json`: an `engine_forkchoiceUpdatedV*`
 * JSON-RPC request whose first param names the head, safe and finalized blocks.
 *
 * @throws ChainImportError naming the missing or malformed field.
 */
export function readForkchoice(json: unknown): Forkchoice {
  if (typeof json !== 'object' || json === null) throw new ChainImportError('forkchoice: expected a JSON-RPC request object')
  const { method, params } = json as { method?: unknown; params?: unknown }
  if (typeof method !== 'string' || !method.startsWith('engine_forkchoiceUpdated'))
    throw new ChainImportError(`forkchoice: method: expected engine_forkchoiceUpdatedV*, got ${JSON.stringify(method)}`)
  const state = Array.isArray(params) ? (params[0] as unknown) : undefined
  if (typeof state !== 'object' || state === null) throw new ChainImportError('forkchoice: params[0]: expected the forkchoice state')
  const { headBlockHash, safeBlockHash, finalizedBlockHash } = state as Record<string, unknown>
  return {
    head: hash(headBlockHash, 'headBlockHash'),
    safe: hash(safeBlockHash, 'safeBlockHash'),
    finalized: hash(finalizedBlockHash, 'finalizedBlockHash'),
  }
}

function hash(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new ChainImportError(`forkchoice: params[0].${field}: expected a 32-byte hash`)
  return value.toLowerCase() as Hex
}

import type { Block } from '../evm/engine.js'
import type { Hex } from 'viem'
import { bytesToHex } from 'viem/utils'
import { flat } from '../evm/engine.js'
import type { ExecutedBlock, ExecutedTx } from '../evm/types.js'
import { compactExecuted } from './compactStored.js'
import { type LogIndex, createLogIndex } from './logIndex.js'

/** A sealed block as the chain keeps it: the executed block plus what lookups need. */
export type StoredBlock = ExecutedBlock & {
  number: bigint
  hash: Hex
  /** Index of the block's first log among all logs of the chain's blocks, per transaction: logIndex = offset + i. */
  logOffsets: number[]
  /**
   * The root reads at this block use: the header's, or for the head the root
   * after cheats (anvil_setBalance and friends change `latest` without a new
   * block, as Anvil does; the header keeps what was sealed).
   */
  stateRoot: Uint8Array
  /** The header's timestamp, when known without reading `block` (a fixture load's blocks are decoded on first read). */
  timestamp?: bigint
  /** The block's RLP size, when known without encoding it (eth_simulateV1's blocks). */
  size?: number
}

/** Read-only access to the sealed chain: what the pre-confirmed layer and readers get (invariant I5). */
export type ChainReader = {
  head(): StoredBlock
  genesis(): StoredBlock
  blockByNumber(number: bigint): StoredBlock | undefined
  blockByHash(hash: Hex): StoredBlock | undefined
  /** Where a sealed transaction sits, or undefined. */
  txLocation(hash: Hex): { block: StoredBlock; index: number } | undefined
  safe(): StoredBlock
  finalized(): StoredBlock
  height(): bigint
  /** The sealed logs, indexed by address and topic (fed by append and truncate). */
  logs: Pick<LogIndex, 'query' | 'ofBlock' | 'countInRange' | 'size'>
  /**
   * The block this one was appended on, as it was then (the object, with its
   * stateRoot), even after either left the chain: snapshots follow these
   * links back to the chain instead of copying it.
   */
  parentOf(block: StoredBlock): StoredBlock | undefined
  /**
   * On a fork, the hash of a block below the fork point (the chain's first
   * block), read from the upstream: BLOCKHASH reaches below the fork.
   */
  remoteBlockHash?: ((number: bigint) => Promise<Uint8Array>) | undefined
}

/**
 * A read-only facade over `chain`: what the node hands out (Node.chain), so
 * a holder of the public node cannot append or truncate even by ignoring
 * the type. The readers of the node's own modules take the chain itself.
 */
export function readerOf(chain: ChainReader): ChainReader {
  const { logs } = chain
  return {
    head: () => chain.head(),
    genesis: () => chain.genesis(),
    blockByNumber: (number) => chain.blockByNumber(number),
    blockByHash: (hash) => chain.blockByHash(hash),
    txLocation: (hash) => chain.txLocation(hash),
    safe: () => chain.safe(),
    finalized: () => chain.finalized(),
    height: () => chain.height(),
    logs: {
      query: (...args) => logs.query(...args),
      ofBlock: (...args) => logs.ofBlock(...args),
      countInRange: (...args) => logs.countInRange(...args),
      size: () => logs.size(),
    },
    parentOf: (block) => chain.parentOf(block),
    remoteBlockHash: chain.remoteBlockHash,
  }
}

export type Chain = ChainReader & {
  append(block: ExecutedBlock): StoredBlock
  /**
   * Appends a block already in stored form as it is, not copied: a fixture
   * load's blocks (whose `block` may be decoded on first read), or the blocks
   * a failed load puts back.
   */
  appendStored(block: StoredBlock): StoredBlock
  /** Replaces the head's state root (after a cheat) and returns the new head; the old object is left unchanged for readers that hold it. */
  replaceHeadState(root: Uint8Array): StoredBlock
  /** Removes every block above `number` and returns them, newest last. */
  truncate(number: bigint): StoredBlock[]
  /** Puts back a block object that once followed the head (snapshot revert), unchanged. */
  reattach(block: StoredBlock): StoredBlock
  setForkchoice(safe: bigint, finalized: bigint): void
}

/** The stored form of an executed block (what `append` keeps). */
export function storedBlock(executed: ExecutedBlock): StoredBlock {
  const logOffsets: number[] = []
  let offset = 0
  for (const tx of executed.txs) {
    logOffsets.push(offset)
    offset += tx.logs.length
  }
  compactExecuted(executed)
  return {
    ...executed,
    number: executed.block.header.number,
    hash: flat(bytesToHex(executed.block.hash())),
    logOffsets,
    stateRoot: executed.block.header.stateRoot,
  }
}

/**
 * The sealed chain: blocks by number and hash, and where each transaction is.
 * Blocks are append-only except for `truncate`, which reorgs, snapshots and
 * fixture loads use; a block is never changed in place.
 */
export function createChain(
  genesis: Block | ExecutedBlock,
  options: { remoteBlockHash?: ((number: bigint) => Promise<Uint8Array>) | undefined } = {},
): Chain {
  const blocks: StoredBlock[] = []
  // The first block's number: 0, or on a fork the fork block's (the blocks below it are the upstream's).
  const first = ('block' in genesis ? genesis.block : genesis).header.number
  const byHash = new Map<Hex, StoredBlock>()
  const txs = new Map<Hex, { block: StoredBlock; index: number }>()
  // Weak, so a block left behind by a truncate is freed once no snapshot holds a descendant.
  const parents = new WeakMap<StoredBlock, StoredBlock>()
  let safe = 0n
  let finalized = 0n
  const logs = createLogIndex()

  const attach = (stored: StoredBlock) => {
    if (stored.number !== first + BigInt(blocks.length))
      throw new Error(`block ${stored.number} does not follow head ${first + BigInt(blocks.length) - 1n}`)
    blocks.push(stored)
    byHash.set(stored.hash, stored)
    stored.txs.forEach((tx: ExecutedTx, index) => txs.set(tx.hash, { block: stored, index }))
    logs.append(stored)
    return stored
  }
  const append = (executed: ExecutedBlock) => {
    return appendStored(storedBlock(executed))
  }
  const appendStored = (stored: StoredBlock) => {
    const parent = blocks[blocks.length - 1]
    attach(stored)
    if (parent) parents.set(stored, parent)
    return stored
  }
  append('block' in genesis ? genesis : { block: genesis, txs: [] })

  const top = () => first + BigInt(blocks.length) - 1n
  const at = (number: bigint) => (number >= first && number <= top() ? blocks[Number(number - first)] : undefined)
  const clamp = (n: bigint) => (n < first ? first : n <= top() ? n : top())

  return {
    head: () => blocks[blocks.length - 1]!,
    genesis: () => blocks[0]!,
    height: top,
    remoteBlockHash: options.remoteBlockHash,
    blockByNumber: at,
    logs,
    blockByHash: (hash) => byHash.get(hash.toLowerCase() as Hex),
    txLocation: (hash) => txs.get(hash.toLowerCase() as Hex),
    // Devnet has no consensus layer: safe and finalized follow the head unless a forkchoice pins them.
    safe: () => at(clamp(safe === 0n ? top() : safe))!,
    finalized: () => at(clamp(finalized === 0n ? top() : finalized))!,
    parentOf: (block) => parents.get(block),
    append,
    appendStored,
    reattach(block) {
      const parent = parents.get(block)
      if (parent && parent !== blocks[blocks.length - 1]) throw new Error(`block ${block.number} does not follow the head`)
      return attach(block)
    },
    replaceHeadState(root) {
      const old = blocks[blocks.length - 1]!
      const head = { ...old, stateRoot: root }
      const parent = parents.get(old)
      if (parent) parents.set(head, parent)
      blocks[blocks.length - 1] = head
      byHash.set(head.hash, head)
      head.txs.forEach((tx, index) => txs.set(tx.hash, { block: head, index }))
      return head
    },
    truncate(number) {
      // first - 1 empties the chain (a snapshot restore or fixture load puts blocks back at once).
      if (number < first - 1n) throw new Error(`cannot truncate to block ${number}: the chain starts at ${first}`)
      const removed = blocks.splice(Number(number - first) + 1)
      logs.truncate(number)
      for (const block of removed) {
        byHash.delete(block.hash)
        for (const tx of block.txs) txs.delete(tx.hash)
      }
      return removed
    },
    setForkchoice(s, f) {
      safe = s
      finalized = f
    },
  }
}

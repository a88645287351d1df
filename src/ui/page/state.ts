import { type RpcLog, type TokenEvent, decodeEvent, num } from './decode.js'

/** A pre-confirmation as the page saw it arrive: the transactions it added to the pending block. */
export type Flashblock = { index: number; txs: string[]; at: number }

/** A sealed block, with the flashblocks it was built from (when the page watched it fill). */
export type BlockView = {
  number: number
  hash: string
  txs: string[]
  flashblocks: Flashblock[]
  gasUsed: number
  sealedAt: number
  /** Left the canonical chain (reorg, rollback, snapshot revert). */
  removed: boolean
}

export type TxView = {
  hash: string
  from: string
  to: string | null
  value: bigint
  input: string
  block: number
  flashblock: number | undefined
  sealed: boolean
  result: 'unknown' | 'ok' | 'reverted'
  reason: string | undefined
  events: TokenEvent[]
  removed: boolean
}

export type AuthView = {
  kind: 'AuthorizationUsed' | 'AuthorizationCanceled'
  authorizer: string
  nonce: string
  tx: string
  block: number
  sealed: boolean
  removed: boolean
}

export type EventView = { key: string; log: RpcLog; event: TokenEvent; removed: boolean }

export type Mining = { type: 'interval'; blockTime: number; preconfInterval: number } | { type: 'auto' } | { type: 'manual' }

/** Everything the page shows, kept small: the last blocks, transactions and events. */
export function createState() {
  return {
    chainId: 0,
    mining: { type: 'manual' } as Mining,
    token: { address: '', symbol: 'token', decimals: 6 },
    accounts: [] as string[],
    balances: new Map<string, { ethLatest: bigint; ethPending: bigint; tokenLatest: bigint; tokenPending: bigint }>(),
    head: { number: -1, hash: '' },
    blocks: [] as BlockView[],
    pending: { number: 0, flashblocks: [] as Flashblock[], startedAt: performance.now(), gasUsed: 0 },
    txs: new Map<string, TxView>(),
    events: [] as EventView[],
    auths: new Map<string, AuthView>(),
    snapshots: [] as string[],
  }
}

export type State = ReturnType<typeof createState>

const keep = { blocks: 14, txs: 60, events: 80 }

/** Drops the oldest entries of an insertion-ordered map past `max`. */
function trim<K, V>(map: Map<K, V>, max: number) {
  for (const key of map.keys()) {
    if (map.size <= max) break
    map.delete(key)
  }
}

/** A transaction object of a block or flashblock. */
export type RpcTx = { hash: string; from: string; to: string | null; value: string; input: string }

/** Records a transaction the page sees for the first time (or again, after a reorg put it back). */
export function noteTx(state: State, tx: RpcTx, block: number, flashblock: number | undefined, sealed: boolean) {
  const known = state.txs.get(tx.hash)
  if (known) {
    known.block = block
    known.sealed = sealed
    known.removed = false
    if (flashblock !== undefined) known.flashblock = flashblock
    return known
  }
  const view: TxView = {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    value: BigInt(tx.value),
    input: tx.input,
    block,
    flashblock,
    sealed,
    result: 'unknown',
    reason: undefined,
    events: [],
    removed: false,
  }
  state.txs.set(tx.hash, view)
  trim(state.txs, keep.txs)
  return view
}

/** A receipt's status and logs onto its transaction, and its authorizations onto the list. */
export function noteReceipt(state: State, receipt: { transactionHash: string; status: string; logs: RpcLog[]; blockNumber: string }) {
  const tx = state.txs.get(receipt.transactionHash)
  if (!tx) return undefined
  tx.result = receipt.status === '0x1' ? 'ok' : 'reverted'
  tx.events = receipt.logs.map(decodeEvent)
  for (const event of tx.events) {
    if (event.kind !== 'AuthorizationUsed' && event.kind !== 'AuthorizationCanceled') continue
    state.auths.set(`${event.authorizer}:${event.nonce}`, {
      kind: event.kind,
      authorizer: event.authorizer,
      nonce: event.nonce,
      tx: tx.hash,
      block: num(receipt.blockNumber),
      sealed: tx.sealed,
      removed: false,
    })
  }
  return tx
}

/** A pre-confirmation arrived: the pending block with every transaction so far; the new ones form a flashblock. */
export function noteFlashblock(state: State, block: { number: string; gasUsed: string; transactions: RpcTx[] }) {
  const number = num(block.number)
  if (number !== state.pending.number) state.pending = { number, flashblocks: [], startedAt: state.pending.startedAt, gasUsed: 0 }
  const seen = new Set(state.pending.flashblocks.flatMap((f) => f.txs))
  const added = block.transactions.filter((tx) => !seen.has(tx.hash))
  state.pending.gasUsed = num(block.gasUsed)
  if (added.length === 0) return []
  const index = state.pending.flashblocks.length + 1
  state.pending.flashblocks.push({ index, txs: added.map((tx) => tx.hash), at: performance.now() })
  for (const tx of added) noteTx(state, tx, number, index, false)
  return added.map((tx) => tx.hash)
}

/**
 * A block was sealed: the pending block's flashblocks move into it (a
 * transaction the page never saw pre-confirmed forms one last slice), and a
 * fresh pending block starts on top.
 */
export function noteSealed(state: State, block: { number: string; hash: string; gasUsed: string; transactions: RpcTx[] }) {
  const number = num(block.number)
  const hashes = block.transactions.map((tx) => tx.hash)
  const inBlock = new Set(hashes)
  const flashblocks =
    state.pending.number === number
      ? state.pending.flashblocks.map((f) => ({ ...f, txs: f.txs.filter((h) => inBlock.has(h)) })).filter((f) => f.txs.length > 0)
      : []
  const covered = new Set(flashblocks.flatMap((f) => f.txs))
  const rest = hashes.filter((h) => !covered.has(h))
  if (rest.length > 0) flashblocks.push({ index: flashblocks.length + 1, txs: rest, at: performance.now() })
  for (const tx of block.transactions) {
    const flashblock = flashblocks.find((f) => f.txs.includes(tx.hash))?.index
    noteTx(state, tx, number, flashblock, true)
  }
  for (const auth of state.auths.values()) if (inBlock.has(auth.tx)) auth.sealed = true
  state.blocks = state.blocks.filter((b) => !(b.number === number && b.hash === block.hash))
  for (const b of state.blocks) if (b.number >= number && !b.removed) b.removed = true
  state.blocks.push({ number, hash: block.hash, txs: hashes, flashblocks, gasUsed: num(block.gasUsed), sealedAt: performance.now(), removed: false })
  state.blocks.sort((a, b) => a.number - b.number || Number(b.removed) - Number(a.removed))
  state.blocks = state.blocks.slice(-keep.blocks)
  state.head = { number, hash: block.hash }
  state.pending = { number: number + 1, flashblocks: [], startedAt: performance.now(), gasUsed: 0 }
}

/** Blocks that are no longer canonical: marked, and their transactions and authorizations with them. */
export function noteRemovedBlock(state: State, hash: string) {
  const block = state.blocks.find((b) => b.hash === hash)
  if (!block || block.removed) return
  block.removed = true
  for (const h of block.txs) {
    const tx = state.txs.get(h)
    if (tx && tx.block === block.number && tx.sealed) tx.removed = true
  }
  for (const auth of state.auths.values()) if (block.txs.includes(auth.tx) && auth.block === block.number) auth.removed = true
}

/** A log from the `logs` subscription (sealed blocks), `removed: true` after a reorg. */
export function noteLog(state: State, log: RpcLog) {
  const key = `${log.blockHash}:${log.logIndex}`
  const event = decodeEvent(log)
  const known = state.events.find((e) => e.key === key)
  if (log.removed) {
    if (known) known.removed = true
    else state.events.push({ key, log, event, removed: true })
    if (log.blockHash) noteRemovedBlock(state, log.blockHash)
  } else if (!known) state.events.push({ key, log, event, removed: false })
  else known.removed = false
  if (state.events.length > keep.events) state.events.splice(0, state.events.length - keep.events)
}

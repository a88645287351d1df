import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { type LogQuery, logMatches, logsOf } from '../node/logIndex.js'
import type { Node } from '../node/node.js'
import type { PreconfSnapshot } from '../node/preconf.js'
import { ArgError, bool } from './codecs.js'
import { type MethodDef, defineMethod } from './defineMethod.js'
import { InvalidInputError, InvalidParamsError, RpcError } from './errors.js'
import { formatBlock, formatPendingBlock, formatTx } from './format.js'
import { transactionByHash } from './methods/blocks.js'
import { formatIndexedLog, logFilter, preconfLogs } from './methods/logs.js'

/** One `eth_subscription` notification. */
export type Notification = { jsonrpc: '2.0'; method: 'eth_subscription'; params: { subscription: Hex; result: unknown } }

const query = (value: unknown): LogQuery => {
  const f = logFilter(value)
  return { addresses: f.addresses, topics: f.topics }
}

/**
 * The blocks a `logs` subscription reports, as geth's filter system decides:
 * a numeric `fromBlock`/`toBlock` bounds the new blocks' numbers (inclusive),
 * a tag leaves its side open, and `blockHash` is not a range. A subscription
 * never reports logs of blocks sealed before it (geth, reth and Anvil do
 * not either: eth_getLogs reads those, on a fork the upstream's too), so a
 * range that ends below the head, such as one below a fork's pin, reports
 * nothing. From above to is refused as geth refuses it.
 */
function blockRange(value: unknown): (n: bigint) => boolean {
  const f = logFilter(value)
  const end = (id: typeof f.from) => (id === undefined ? undefined : 'number' in id ? id.number : 'tag' in id && id.tag === 'earliest' ? 0n : undefined)
  const from = end(f.from)
  const to = end(f.to)
  if (from !== undefined && to !== undefined && from > to) throw new InvalidInputError('invalid from and to block combination')
  return (n) => (from === undefined || n >= from) && (to === undefined || n <= to)
}

/** A block header as newHeads sends it: the block without transactions, uncles or size. */
function header(block: Parameters<typeof formatBlock>[0]) {
  const out = formatBlock(block, false)
  delete out.transactions
  delete out.uncles
  delete out.size
  return out
}

/** The pre-confirmed transactions a tick added, with their pending placement. */
function addedTxs(snapshot: PreconfSnapshot) {
  const added = new Set(snapshot.added)
  return snapshot.txs.flatMap((tx, index) => (added.has(tx.hash) ? [{ tx, index }] : []))
}

/**
 * The subscriptions of one connection: eth_subscribe / eth_unsubscribe for
 * newHeads, logs, newPendingTransactions, and Base's pre-confirmation
 * streams pendingLogs, newFlashblocks and newFlashblockTransactions (one
 * item per message, the newest pre-confirmation's delta only). Listens to
 * node events and hands notifications to `send`; the node never waits for
 * the transport.
 */
export function createSubscriptions(nodeOf: Node | (() => Node), send: (message: Notification) => void) {
  /** The node events come from: a getter follows a node replaced by a re-fork (anvil_reset with forking). */
  const current = typeof nodeOf === 'function' ? nodeOf : () => nodeOf
  const active = new Map<Hex, () => void>()
  /** What each subscription asked for, to listen again on a new node. */
  const asked = new Map<Hex, { kind: string; options: unknown }>()
  /** Notifications wait while a request that subscribes is being answered, so the id always arrives first. */
  let holding = 0
  let held: Notification[] = []

  const emit = (subscription: Hex, result: unknown) => {
    const message: Notification = { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } }
    if (holding > 0) held.push(message)
    else send(message)
  }

  const listen = (kind: string, options: unknown, id: Hex): (() => void) => {
    const node = current()
    const { events } = node
    switch (kind) {
      case 'newHeads':
        return events.on('newHead', (block) => emit(id, header(block)))
      case 'logs': {
        const q = query(options)
        const inRange = blockRange(options)
        const offRemoved = events.on('removedBlocks', (blocks) => {
          for (const block of blocks)
            if (inRange(block.number)) for (const log of logsOf(block)) if (logMatches(q, log)) emit(id, formatIndexedLog(log, true))
        })
        const offHead = events.on('newHead', (block) => {
          if (!inRange(block.number)) return
          for (const log of node.chain.logs.ofBlock(block.number)) if (logMatches(q, log)) emit(id, formatIndexedLog(log))
        })
        return () => {
          offRemoved()
          offHead()
        }
      }
      case 'newPendingTransactions': {
        const full = options == null ? false : bool(options)
        return events.on('pendingTx', (hash) => {
          if (!full) return emit(id, hash)
          const tx = transactionByHash(node, hash)
          if (tx) emit(id, tx)
        })
      }
      case 'pendingLogs': {
        const q = query(options)
        const offPreconf = events.on('preconf', (snapshot) => {
          for (const log of preconfLogs(snapshot, q, { only: new Set(snapshot.added) })) emit(id, log)
        })
        const offDropped = events.on('droppedPreconf', ({ before, dropped }) => {
          for (const log of preconfLogs(before, q, { only: new Set(dropped), removed: true })) emit(id, log)
        })
        return () => {
          offPreconf()
          offDropped()
        }
      }
      case 'newFlashblocks':
        return events.on('preconf', (snapshot) => emit(id, formatPendingBlock(snapshot, true, snapshot.env.gasLimit)))
      case 'newFlashblockTransactions': {
        const full = options == null ? false : bool(options)
        return events.on('preconf', (snapshot) => {
          for (const { tx, index } of addedTxs(snapshot)) {
            if (!full) {
              emit(id, tx.hash)
              continue
            }
            const object = formatTx(tx.tx, tx.from, {
              blockHash: null,
              blockNumber: snapshot.number,
              blockTimestamp: snapshot.env.timestamp,
              index,
              baseFee: snapshot.env.baseFeePerGas,
            })
            emit(id, { ...object, logs: preconfLogs(snapshot, { addresses: undefined, topics: [] }, { only: new Set([tx.hash]) }) })
          }
        })
      }
      default:
        throw new InvalidParamsError(`invalid argument 0: unsupported subscription type ${JSON.stringify(kind)}`)
    }
  }

  const methods: MethodDef[] = [
    defineMethod({
      method: 'eth_subscribe',
      params: [
        (v: unknown) => {
          if (typeof v !== 'string') throw new ArgError('expected a subscription type')
          return v
        },
        (v: unknown) => v,
      ],
      required: 1,
      handler: (_context, [kind, options]) => {
        const id = `0x${randomBytes(16).toString('hex')}` as Hex
        try {
          active.set(id, listen(kind, options, id))
          asked.set(id, { kind, options })
        } catch (error) {
          if (error instanceof ArgError) throw new InvalidParamsError(`invalid argument 1: ${error.message}`)
          throw error
        }
        return id
      },
    }),
    defineMethod({
      method: 'eth_unsubscribe',
      params: [
        (v: unknown) => {
          // An object without a string form (no prototype) is an argument error, not a crash in String().
          if (typeof v === 'object' && v !== null) throw new ArgError('expected a subscription id')
          return String(v).toLowerCase() as Hex
        },
      ],
      handler: (_context, [id]) => {
        const off = active.get(id)
        if (!off) throw new InvalidInputError('subscription not found')
        off()
        active.delete(id)
        asked.delete(id)
        return true
      },
    }),
  ]

  return {
    /** eth_subscribe and eth_unsubscribe bound to this connection. */
    methods,
    /** Holds notifications while a response that may carry a new subscription id is on its way. */
    hold() {
      holding++
    },
    release() {
      holding = Math.max(0, holding - 1)
      if (holding > 0 || held.length === 0) return
      const out = held
      held = []
      for (const message of out) send(message)
    },
    size: () => active.size,
    /**
     * Moves every subscription to the node the getter now returns (a re-fork
     * replaced the node): same ids, now fed by the new chain's events.
     */
    rebind() {
      for (const [id, off] of active) {
        off()
        const { kind, options } = asked.get(id)!
        active.set(id, listen(kind, options, id))
      }
    },
    /** Stops every subscription (the connection closed). */
    close() {
      for (const off of active.values()) off()
      active.clear()
      asked.clear()
      held = []
    },
  }
}

/** Over HTTP there is no connection to push to, as geth answers. */
export const httpSubscriptionMethods: MethodDef[] = ['eth_subscribe', 'eth_unsubscribe'].map((method) => ({
  method,
  call: () => {
    throw new RpcError(-32601, 'notifications not supported')
  },
}))

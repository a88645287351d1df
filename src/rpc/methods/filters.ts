import type { Hex } from 'viem'
import type { LogChange } from '../../node/filters.js'
import type { Node } from '../../node/node.js'
import type { BlockId } from '../../node/views.js'
import { ArgError, bool } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidInputError } from '../errors.js'
import { transactionByHash } from './blocks.js'
import { type LogFilter, formatIndexedLog, getLogs, logFilter } from './logs.js'

/** A filter id as geth hands them out: 0x-prefixed hex. */
const filterId = (value: unknown): Hex => {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) throw new ArgError('invalid filter id')
  return value.toLowerCase() as Hex
}

const notFound = () => new InvalidInputError('filter not found')

/** A numeric end of a filter's range; tags leave that side open, as geth's filter system does. */
const bound = (node: Node, id: BlockId | undefined): bigint | undefined => {
  if (!id) return undefined
  if ('number' in id) return id.number
  if ('hash' in id) return node.views.resolve(id).number
  return id.tag === 'earliest' ? 0n : undefined
}

const formatChange = (change: LogChange) => formatIndexedLog(change.log, change.removed)

/**
 * Polling filters: eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter. A reorg between polls gives the dropped logs with
 * `removed: true` before the logs of the new blocks.
 */
export const filterMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_newFilter',
    params: [logFilter],
    handler: ({ node }, [filter]) => {
      const bounds = filter.blockHash
        ? (() => {
            const n = node.views.resolve({ hash: filter.blockHash }).number
            return { from: n, to: n }
          })()
        : { from: bound(node, filter.from), to: bound(node, filter.to) }
      return node.filters.newLogFilter(filter, bounds, filter)
    },
  }),
  defineMethod({
    method: 'eth_newBlockFilter',
    params: [],
    handler: ({ node }) => node.filters.newBlockFilter(),
  }),
  defineMethod({
    method: 'eth_newPendingTransactionFilter',
    params: [bool],
    required: 0,
    handler: ({ node }, [full]) => node.filters.newPendingTransactionFilter(full ?? false),
  }),
  defineMethod({
    method: 'eth_getFilterChanges',
    params: [filterId],
    handler: ({ node }, [id]) => {
      const taken = node.filters.takeChanges(id)
      if (!taken) throw notFound()
      const { filter, changes } = taken
      if (filter.kind === 'logs') return (changes as LogChange[]).map(formatChange)
      if (filter.kind === 'pendingTransactions' && filter.full)
        return (changes as Hex[]).map((hash) => transactionByHash(node, hash)).filter((tx) => tx !== null)
      return changes
    },
  }),
  defineMethod({
    method: 'eth_getFilterLogs',
    params: [filterId],
    handler: ({ node }, [id]) => {
      const filter = node.filters.get(id)
      if (!filter || filter.kind !== 'logs') throw notFound()
      return getLogs(node, filter.criteria as LogFilter)
    },
  }),
  defineMethod({
    method: 'eth_uninstallFilter',
    params: [filterId],
    handler: ({ node }, [id]) => node.filters.uninstall(id),
  }),
]

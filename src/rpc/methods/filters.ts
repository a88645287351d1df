import type { Hex } from 'viem'
import type { LogChange } from '../../node/filters.js'
import { ArgError, bool } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidInputError } from '../errors.js'
import { transactionByHash } from './blocks.js'
import { formatIndexedLog, logFilter } from './logs.js'

/** A filter id as geth hands them out: 0x-prefixed hex. */
const filterId = (value: unknown): Hex => {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) throw new ArgError('invalid filter id')
  return value.toLowerCase() as Hex
}

const notFound = () => new InvalidInputError('filter not found')

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
    handler: ({ node }, [filter]) => node.newLogFilter(filter),
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
    handler: ({ node }, [id]) => node.filterLogs(id).map((log) => formatIndexedLog(log)),
  }),
  defineMethod({
    method: 'eth_uninstallFilter',
    params: [filterId],
    handler: ({ node }, [id]) => node.filters.uninstall(id),
  }),
]

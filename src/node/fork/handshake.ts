import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ForkConfig } from '../../config/schema.js'
import { InvalidInputError } from '../errors.js'
import { type FirstReads, beginFirstReads, withinCacheCheck } from './firstReads.js'
import { type Remote, createRemote } from './remote.js'

/**
 * A fork's first upstream reads: the upstream's chain id and the fork
 * block's header, asked for together (one JSON-RPC batch) as soon as the
 * config is known, so that they travel while the engine loads instead of one
 * round trip after another once it has (firstReads.ts sends them, begun by
 * startDevnet or the CLI's front before listening; openFork waits for them
 * through this handshake).
 *
 * A warm start takes the chain id from the URL's cache file and the fork
 * block's header from the pin's, and asks for both all the same, in the one
 * batch: a chain id changed stops the start (its cache file rewritten, so
 * the next start is right), and openFork hands the header's hash to the fork
 * source, which drops a cache recorded at another hash (source.ts). When
 * that batch goes unanswered, or not within `cacheCheckMs`, the caches are
 * trusted as they are, as before these checks.
 */
export type ForkHandshake = {
  remote: Remote
  cacheDir: string | undefined
  /** The upstream's chain id. */
  chainId: Promise<bigint>
  /**
   * The fork block's number and, when the upstream answered it, its header
   * (`eth_getBlockByNumber`, null when the upstream lacks it); no header: a
   * warm start whose upstream did not answer, or an offline one.
   */
  pin: Promise<{ blockNumber: bigint; header?: Record<string, unknown> | null }>
}

export { defaultForkCacheDir, legacyCacheFile, pinCacheFile } from './firstReads.js'

/**
 * The handshake over a fork's first reads (firstReads.ts: begun here, or by
 * the CLI's front bundle before the rest of the CLI was read): the upstream
 * client takes over their transport and the batch they sent, and judges the
 * reply as any other (errors become this bundle's ForkRemoteError).
 */
export function beginForkHandshake(options: ForkConfig, begun?: FirstReads): ForkHandshake {
  const first = begun ?? beginFirstReads(options)
  const remote = createRemote({ url: options.url, offline: options.offline, transport: first.transport, preSent: first.sent })
  const { cacheDir, urlFile, known, numbered } = first
  // Both asked in this tick, so they share one batch (remote.ts): the one firstReads.ts sent. The chain id even when
  // the URL's cache file holds it: the chain at a URL can change (a local node restarted with another id).
  const askedChainId = remote.request<string>('eth_chainId').then((answer) => BigInt(answer))
  const chainId =
    known === undefined
      ? askedChainId.then((id) => {
          writeChainId(urlFile, id)
          return id
        })
      : withinCacheCheck(
          askedChainId.then(
            (id) => {
              if (id === known) return known
              // Already answered as `known` (eth_chainId while the engine loaded): the start stops; the next one is right.
              writeChainId(urlFile, id)
              throw new InvalidInputError(
                `the upstream ${remote.upstream} now has chain id ${id}, not ${known} as when this URL was forked before (its chain restarted with another id?): start again`,
              )
            },
            // Unanswered (the upstream down, or offline): the cached one, as before the check.
            () => known,
          ),
          known,
        )
  let pin: ForkHandshake['pin']
  if (options.offline && numbered === undefined)
    pin = Promise.reject(new InvalidInputError('an offline fork needs a fork block number: "latest" would ask the upstream'))
  else if (numbered === undefined)
    // `latest`: the head's header names its number, one read instead of eth_blockNumber and then the header.
    pin = remote.request<Record<string, unknown> | null>('eth_getBlockByNumber', ['latest', false]).then((header) => {
      if (!header || typeof header.number !== 'string') throw new InvalidInputError(`the latest block of ${remote.upstream} has no number`)
      return { blockNumber: BigInt(header.number), header }
    })
  else if (first.warm && options.offline)
    // Offline and warm: the header is in the pin's cache file.
    pin = Promise.resolve({ blockNumber: numbered })
  else {
    const askedHeader = remote.request<Record<string, unknown> | null>('eth_getBlockByNumber', [`0x${numbered.toString(16)}`, false])
    pin = first.warm
      ? // Warm: the header is in the pin's cache file too, taken unchecked when the upstream does not answer in time.
        withinCacheCheck(
          askedHeader.then(
            (header) => ({ blockNumber: numbered, header }),
            () => ({ blockNumber: numbered }),
          ),
          { blockNumber: numbered },
        )
      : askedHeader.then((header) => ({ blockNumber: numbered, header }))
  }
  // Awaited by openFork, maybe after a rejection: not an unhandled one meanwhile.
  chainId.catch(() => {})
  pin.catch(() => {})
  return { remote, cacheDir, chainId, pin }
}

function writeChainId(file: string, chainId: bigint) {
  try {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, JSON.stringify({ chainId: chainId.toString() }))
  } catch {
    // A cache that cannot be written costs a remote call next time, nothing more.
  }
}

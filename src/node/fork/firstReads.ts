import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import type { ForkConfig } from '../../config/schema.js'
import type { EarlyHandOver } from './earlyReads.js'
import type { HttpReply } from './httpClient.js'
import { type Transport, createTransport } from './transport.js'

/**
 * A fork's first upstream reads, sent before anything else of a start: the
 * upstream's chain id and the fork block's header, in one JSON-RPC batch.
 * A warm start (the URL's cache file holds the chain id, the pin's cache
 * file the header) asks for both all the same, in that one request: they
 * tell whether the caches are of this chain (a local chain restarts as
 * another at the same URL, chain id and block number: cacheLog.ts,
 * cachedPinHash), and the answer has come by the time the first reads need
 * the cache, since it travels while the engine loads. The cached chain id
 * answers `eth_chainId` meanwhile. Plain data out: what was decided, the request sent and its raw
 * reply, and the chain id as soon as the reply names it (for the early
 * eth_chainId of src/rpc/startupDispatcher.ts).
 *
 * Why plain: the CLI's front bundle (src/cli/front.ts) begins these before
 * the rest of the CLI (the engine, the node, the upstream client with its
 * error classes) is read, and the CLI bundle takes them over
 * (handshake.ts): a class made by one bundle is not the other's, so only
 * functions, data and plain Errors cross. The reply is read and judged (HTTP
 * status, JSON-RPC errors, retries with backoff, ForkRemoteError) by the
 * upstream client (remote.ts), which takes the sent request as its first
 * attempt. This module and the transport import node's built-ins and
 * noble's SHA-256 only (scripts/bundle.mjs checks it).
 */
export type FirstReads = {
  url: string
  offline: boolean
  cacheDir: string
  /** The URL's cache file: the chain id of this upstream, once learnt. */
  urlFile: string
  /** The chain id from the URL's cache file, when it was there. */
  known: bigint | undefined
  /** The fork block when the config numbers it (undefined: `latest`). */
  numbered: bigint | undefined
  /** The pin's cache file exists: the fork block's header is in it. */
  warm: boolean
  transport: Transport
  /** The batch sent, in the upstream client's own encoding (remote.ts), with its reply; undefined when nothing needed asking. */
  sent: { body: string; reply: Promise<HttpReply> } | undefined
  /** The upstream's chain id, from the cache or the reply; rejects when neither told it (the node's start then says why). */
  chainId: Promise<bigint>
  /** The fork block's number: the config's, or the number of the head the reply names; undefined when neither told it. */
  pin: Promise<bigint | undefined>
  /** The fork block's header as the reply has it (null: the upstream lacks the block); undefined when not sent, failed or later than `cacheCheckMs`. */
  header: Promise<Record<string, unknown> | null | undefined>
  /** What the front's early reads (earlyReads.ts) read before the node was built, for the fork source. */
  early?: EarlyHandOver
}

/** Where fork reads are cached when the config does not say. */
export const defaultForkCacheDir = () => join(builtin('node:os').homedir(), '.devnet', 'fork-cache')

/** The pin's cache file (source.ts writes it, cacheLog.ts says how). */
export const pinCacheFile = (cacheDir: string, chainId: bigint, blockNumber: bigint) => join(cacheDir, chainId.toString(), `${blockNumber}.log`)
/** Where version 1 kept it (one JSON document), still read. */
export const legacyCacheFile = (cacheDir: string, chainId: bigint, blockNumber: bigint) => join(cacheDir, chainId.toString(), `${blockNumber}.json`)

/** A built-in taken when first needed: the front of a start without a fork takes this module in too. */
const builtin = <Id extends 'node:os'>(id: Id) => process.getBuiltinModule(id)

/** Per HTTP request, as the upstream client's default (remote.ts). */
const timeoutMs = 30_000

/**
 * How long a warm start waits for its caches' check (the chain id and the
 * pin's header) before it trusts the caches unchecked. The answer comes in
 * milliseconds from a local node and well under a second from a hosted one;
 * an upstream that hangs (packets dropped) would otherwise hold a warm start,
 * which needs nothing else from it, for the upstream client's timeouts and
 * retries (minutes).
 */
export const cacheCheckMs = 3_000

/** `promise`, or `fallback` once `cacheCheckMs` have passed without it (the timer does not hold the process open). */
export function withinCacheCheck<T, F>(promise: Promise<T>, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), cacheCheckMs)
    timer.unref()
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

export function beginFirstReads(options: ForkConfig): FirstReads {
  const offline = options.offline === true
  const cacheDir = options.cacheDir ?? defaultForkCacheDir()
  // Hashed with noble's SHA-256, not node:crypto's: loading node:crypto was the largest part of a fork's work before listening.
  const urlFile = join(cacheDir, 'urls', `${bytesToHex(sha256(utf8ToBytes(options.url))).slice(0, 32)}.json`)
  const known = readChainId(urlFile)
  const numbered = typeof options.blockNumber === 'bigint' ? options.blockNumber : undefined
  const warm = known !== undefined && numbered !== undefined && (existsSync(pinCacheFile(cacheDir, known, numbered)) || existsSync(legacyCacheFile(cacheDir, known, numbered)))
  const transport = createTransport(options.url, 8)
  // What handshake.ts asks, in its order: the chain id (checked against the URL's cache file when it has one), then the
  // fork block's header (offline: nothing is sent).
  const asks: [string, unknown[]][] = [
    ['eth_chainId', []],
    ['eth_getBlockByNumber', [numbered === undefined ? 'latest' : `0x${numbered.toString(16)}`, false]],
  ]
  let sent: FirstReads['sent']
  if (!offline) {
    const body = JSON.stringify(asks.map(([method, params], i) => ({ jsonrpc: '2.0', id: i + 1, method, params })))
    const reply = transport.post(body, timeoutMs)
    // Judged by the upstream client, maybe never (when the node's start fails first): not an unhandled rejection meanwhile.
    reply.catch(() => {})
    sent = { body, reply }
  }
  // The reply read once, for the chain id (id 1) and the header (id 2: the head's number when the pin is `latest`).
  const results = sent?.reply.then(resultsById)
  results?.catch(() => {})
  const chainId =
    known !== undefined
      ? Promise.resolve(known)
      : results
        ? results.then((byId) => {
            const id = byId.get(1)
            if (typeof id !== 'string') throw new Error('no chain id in the reply')
            return BigInt(id)
          })
        : Promise.reject(new Error('the chain id is not known yet'))
  chainId.catch(() => {})
  const headerId = asks.length
  const pin =
    numbered !== undefined
      ? Promise.resolve(numbered)
      : results
        ? results.then(
            (byId) => {
              const number = (byId.get(headerId) as { number?: unknown } | null | undefined)?.number
              return typeof number === 'string' && /^0x[0-9a-fA-F]+$/.test(number) ? BigInt(number) : undefined
            },
            () => undefined,
          )
        : Promise.resolve(undefined)
  const header = results
    ? withinCacheCheck(
        results.then(
          (byId) => byId.get(headerId) as Record<string, unknown> | null | undefined,
          () => undefined,
        ),
        undefined,
      )
    : Promise.resolve(undefined)
  return { url: options.url, offline, cacheDir, urlFile, known, numbered, warm, transport, sent, chainId, pin, header }
}

/**
 * The results of a JSON-RPC reply (one answer or a batch) by id, the first
 * of each id; throws on an HTTP error or a body that is not JSON. What the
 * front reads of its own requests' replies (the upstream client judges them
 * again, with its errors and retries).
 */
export function resultsById(reply: HttpReply): Map<unknown, unknown> {
  if (reply.status !== 200) throw new Error(`HTTP ${reply.status}`)
  const parsed = JSON.parse(reply.text) as unknown
  const results = new Map<unknown, unknown>()
  for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!item || typeof item !== 'object') continue
    const { id, result } = item as { id?: unknown; result?: unknown }
    if (!results.has(id)) results.set(id, result)
  }
  return results
}

function readChainId(file: string): bigint | undefined {
  try {
    return BigInt((JSON.parse(readFileSync(file, 'utf8')) as { chainId: string }).chainId)
  } catch {
    return undefined
  }
}

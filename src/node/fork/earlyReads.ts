import { existsSync } from 'node:fs'
import { type DevnetConfig, defaultMnemonic } from '../../config/schema.js'
import { knownAddresses } from '../knownAddresses.js'
import { type CachedAccount, type LoadedCache, cachedAccount, cachedPinHash, otherPin, readCacheLog } from './cacheLog.js'
import { type FirstReads, legacyCacheFile, pinCacheFile, resultsById } from './firstReads.js'
import type { HttpReply } from './httpClient.js'

type Hex = `0x${string}`

/**
 * What a fork's early reads handed over to the fork source (source.ts), on
 * FirstReads (plain data and functions: this module runs in the CLI's front
 * bundle, the source in the CLI's).
 */
export type EarlyHandOver = {
  /** The pin these reads are at, once the first of them knew it. */
  pin: { chainId: bigint; blockNumber: bigint } | undefined
  /** The pin's cache log as the front read it (a warm start): the source takes it instead of reading the file again. */
  loaded: LoadedCache | undefined
  /** Accounts read from the upstream before the node was built (lowercase address → entry; undefined when the read failed). */
  accounts: Map<string, Promise<CachedAccount | undefined>>
  /** Upstream requests made for them, counted into the upstream client's stats once the source exists. */
  stats: { http: number; requests: number }
  /** Set by the source once it exists (and has taken what was read so far): later reads are its own. */
  source?: { read(address: string): Promise<CachedAccount> }
}

/** Account reads answered before the node is built (eth_getBalance, eth_getTransactionCount, eth_getCode). */
const methods = { eth_getBalance: 1, eth_getTransactionCount: 0, eth_getCode: 2 } as const

/**
 * Addresses whose state at `latest` or `pending` the node changes as it
 * starts, so their answer is the node's, never the upstream's as is: the
 * system contracts a block calls (EIP-4788, 2935, 7002, 7251; the pending
 * block's system writes change their storage) and the fork's tombstone
 * account (src/evm/forkState.ts). The dev accounts (their balance is the
 * config's) are added per config. test/fork/earlyReads.test.ts checks this
 * list against the engine's.
 */
export const startWrites = [
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  '0x0000f90827f1c53a10cb7a02335b175320002935',
  '0x00000961ef480eb55e80d19ad83579a64c007002',
  '0x0000bbddc7ce488642fb579f8b00f3a590007251',
  '0xc17e95f52ceb66b29e7386b2c7a4d3014d6f9e6b',
]

/**
 * A fork's account reads, answered while the engine loads (the CLI's front
 * bundle listens before it, src/cli/front.ts): `eth_getBalance`,
 * `eth_getTransactionCount` and `eth_getCode` of an address at `latest`,
 * `pending` or the fork block's number, from the pin's disk cache (a warm
 * start, once the upstream's hash of the pin matches the cache's) or the
 * upstream (one batch of the same three reads the fork source
 * makes, on the first reads' kept-alive connection). Before the node has
 * sealed or run anything, those tags all name the fork block's state, which
 * is the upstream's except for the dev accounts (the config's balance) and
 * the accounts the first blocks write (`startWrites`): those, any other
 * method or block, a batch, and a read the upstream or cache cannot give at
 * once (an error, offline without it) wait for the node, as any request
 * does. Each read is handed to the fork source (`EarlyHandOver`), which
 * writes it to the disk cache and never asks the upstream for it again.
 *
 * Undefined when the dev accounts are not known without the curve work (a
 * mnemonic other than the default, more than its 20 memoized accounts); a
 * pin whose cache is a version 1 file answers nothing either: then every
 * request waits.
 */
export function createEarlyReads(first: FirstReads, config: DevnetConfig) {
  if (config.mnemonic !== defaultMnemonic || config.accounts > knownAddresses.size) return undefined
  const skipped = new Set([...startWrites, ...[...knownAddresses.values()].slice(0, config.accounts).map((a) => a.toLowerCase())])
  const early: EarlyHandOver = { pin: undefined, loaded: undefined, accounts: new Map(), stats: { http: 0, requests: 0 } }
  first.early = early
  let disabled = false
  /** The pin's chain id and number, once known (from the config, the URL's cache file or the first batch's reply). */
  const pin: Promise<{ chainId: bigint; blockNumber: bigint } | undefined> = Promise.all([first.chainId, first.pin]).then(
    ([chainId, blockNumber]) => (blockNumber === undefined ? undefined : { chainId, blockNumber }),
    () => undefined,
  )

  /** At the first read: the pin's cache log, unless the source already has it; false when early reads are off. */
  let begun: Promise<boolean> | undefined
  const begin = (at: { chainId: bigint; blockNumber: bigint }) => (begun ??= open(at))
  async function open(at: { chainId: bigint; blockNumber: bigint }) {
    early.pin = at
    // The first reads looked for the pin's files when they knew the chain id and the pin: a cold start has none.
    if (early.source || (!first.warm && first.known !== undefined && first.numbered !== undefined)) return true
    const loaded = readCacheLog(pinCacheFile(first.cacheDir, at.chainId, at.blockNumber), at.chainId, at.blockNumber)
    // A version 1 file only: the source converts it; reading around it here would ask the upstream for what it holds.
    if (!loaded && existsSync(legacyCacheFile(first.cacheDir, at.chainId, at.blockNumber))) {
      disabled = true
      return false
    }
    // As the fork source does: a cache whose pin has another hash than the upstream's now (the first reads asked for
    // it) holds another chain at this chain id and block, and is not read. Unanswered: trusted, as the source does.
    const recorded = loaded && cachedPinHash(loaded, at.blockNumber)
    const header = recorded === undefined ? undefined : await first.header
    early.loaded = header === null || otherPin(recorded, header?.hash) ? undefined : loaded
    return true
  }

  const account = (address: string, block: string): Promise<CachedAccount | undefined> | undefined => {
    if (early.source) return early.source.read(address).catch(() => undefined)
    const cached = early.loaded?.accounts[address]
    if (cached !== undefined) return Promise.resolve(cached)
    const known = early.accounts.get(address)
    if (known) return known
    if (first.offline) return undefined
    const body = JSON.stringify(
      ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'].map((method, i) => ({ jsonrpc: '2.0', id: i + 1, method, params: [address, block] })),
    )
    early.stats.http++
    early.stats.requests += 3
    const read = first.transport.post(body, 30_000).then(
      (reply) => accountOf(reply),
      () => undefined,
    )
    early.accounts.set(address, read)
    return read
  }

  /** The result of `payload` (a request with a valid envelope and id), when this answers it; undefined: the node does. */
  return function answer(payload: { method: string; params?: unknown }): Promise<string | undefined> | undefined {
    if (disabled || !Object.hasOwn(methods, payload.method) || !Array.isArray(payload.params)) return undefined
    const field = methods[payload.method as keyof typeof methods]
    const [address, tag, ...rest] = payload.params as unknown[]
    if (rest.length > 0 || typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) return undefined
    const key = address.toLowerCase()
    if (skipped.has(key) || !(tag === undefined || typeof tag === 'string')) return undefined
    return pin.then(async (at) => {
      if (!at) return undefined
      const block = `0x${at.blockNumber.toString(16)}`
      if (tag !== undefined && tag !== 'latest' && tag !== 'pending' && tag !== block) return undefined
      const read = (await begin(at)) ? account(key, block) : undefined
      return read?.then((entry) => {
        if (entry === undefined) return undefined
        // As the node writes them (rpc/format.ts's q, the code's bytes as hex).
        return field === 2 ? (entry?.[2] || '0x').toLowerCase() : `0x${BigInt(entry?.[field] ?? 0).toString(16)}`
      })
    })
  }
}

/** The account in a reply to the batch of balance, nonce and code (ids 1, 2, 3); undefined for anything else. */
function accountOf(reply: HttpReply): CachedAccount | undefined {
  let results: Map<unknown, unknown>
  try {
    results = resultsById(reply)
  } catch {
    return undefined
  }
  const [balance, nonce, code] = [results.get(1), results.get(2), results.get(3)]
  const quantity = (v: unknown): v is Hex => typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)
  if (!quantity(balance) || !quantity(nonce) || typeof code !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(code)) return undefined
  return cachedAccount(balance, nonce, code as Hex)
}

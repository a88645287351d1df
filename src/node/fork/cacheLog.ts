import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isAscii } from 'node:buffer'
import { join } from 'node:path'

/**
 * A fork pin's disk cache as an append-only log: one upstream answer per
 * line, tab-separated (JSON never holds a raw tab or newline):
 *
 *   devnet fork cache  2  <chainId>  <blockNumber>      the first line
 *   a  <address>  <nonce>  <balance>  <code>            an account (0x hex)
 *   a  <address>  -                                     an empty account
 *   s  <address>  <slot>  <value>                       a storage word
 *   r  <method>:<params as JSON>  <result as JSON>      any other read
 *
 * Why not one JSON document (version 1, `<block>.json`, still read): every
 * save rewrote and every start parsed the whole of it, a few hundred ms each
 * for a cache of a few MB (hundreds of contracts' code), and a save ran
 * every time a burst of reads had added anything. Here a save appends the
 * new lines, and a start splits lines without parsing the reads' JSON
 * (headers, blocks, receipts, logs: parsed when first asked for). Every
 * answer is fixed at the pin, so a key written twice (two processes on one
 * cache) holds the same value twice; a torn last line is skipped.
 */

type Hex = `0x${string}`
/** An account as cached: [nonce, balance, code], or null for an empty one. */
export type CachedAccount = [nonce: Hex, balance: Hex, code: Hex] | null

export type LoadedCache = {
  accounts: Record<string, CachedAccount>
  storage: Record<string, Record<string, Hex>>
  /** Reads as their JSON text, parsed on first use. */
  rawReads: Map<string, string>
  /** The file ends in a torn line: the next append starts a new line first. */
  torn: boolean
}

const magic = 'devnet fork cache'

/** An account as the upstream answered its balance, nonce and code at the pin; null when it is empty. */
export const cachedAccount = (balance: Hex, nonce: Hex, code: Hex): CachedAccount =>
  BigInt(balance) === 0n && BigInt(nonce) === 0n && (code === '0x' || !code) ? null : [nonce, balance, code]

/** The cache key of the fork block's header (`r` lines; source.ts's reads are keyed `method:params`). */
export const pinHeaderKey = (blockNumber: bigint) => `eth_getBlockByNumber:${JSON.stringify([`0x${blockNumber.toString(16)}`, false])}`

/** The fork block's hash as a cache log recorded it (the `hash` of its header read, JSON text); undefined when it holds none. */
export function cachedPinHash(loaded: LoadedCache, blockNumber: bigint): unknown {
  const header = loaded.rawReads.get(pinHeaderKey(blockNumber))
  if (header === undefined) return undefined
  try {
    return (JSON.parse(header) as { hash?: unknown } | null)?.hash
  } catch {
    return undefined
  }
}

/**
 * Whether a cache recorded its pin at another hash than the upstream's now
 * (both known). Why it matters: a cache is keyed by chain id and block
 * number only, and a local chain (Anvil, Hardhat, a devnet: chain id 31337
 * at block 5) is a different chain each time it restarts, so a start checks
 * this before it trusts what the cache holds.
 */
export const otherPin = (recorded: unknown, upstream: unknown) =>
  typeof recorded === 'string' && typeof upstream === 'string' && recorded.toLowerCase() !== upstream.toLowerCase()

export const accountLine = (address: string, entry: CachedAccount) => (entry === null ? `a\t${address}\t-` : `a\t${address}\t${entry.join('\t')}`)
export const storageLine = (address: string, slot: string, value: string) => `s\t${address}\t${slot}\t${value}`
export const readLine = (key: string, result: unknown) => `r\t${key}\t${JSON.stringify(result)}`

/** What `file` holds for this pin; undefined when there is no file, or one of another pin or version. */
export function readCacheLog(file: string, chainId: bigint, blockNumber: bigint): LoadedCache | undefined {
  let text: string
  try {
    const bytes = readFileSync(file)
    // Hex and JSON of hex: nearly always ASCII, which decodes as latin1 at a fraction of utf8's cost.
    text = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')
  } catch {
    return undefined
  }
  const end = text.lastIndexOf('\n')
  const first = text.indexOf('\n')
  if (first < 0 || text.slice(0, first) !== `${magic}\t2\t${chainId}\t${blockNumber}`) return undefined
  const loaded: LoadedCache = { accounts: {}, storage: {}, rawReads: new Map(), torn: end !== text.length - 1 }
  // Sliced straight out of the text, without a string per line first: this is most of a warm start's reading.
  for (let at = first + 1; at < end; ) {
    const stop = text.indexOf('\n', at)
    const kind = text.charCodeAt(at)
    const tab = text.indexOf('\t', at + 2)
    if (text.charCodeAt(at + 1) === 9 && tab > 0 && tab < stop) {
      const key = text.slice(at + 2, tab)
      if (kind === 115 /* s */) {
        const split = text.indexOf('\t', tab + 1)
        if (split > 0 && split < stop) (loaded.storage[key] ??= {})[text.slice(tab + 1, split)] = text.slice(split + 1, stop) as Hex
      } else if (kind === 97 /* a */) {
        const rest = text.slice(tab + 1, stop)
        if (rest === '-') loaded.accounts[key] = null
        else {
          const fields = rest.split('\t')
          if (fields.length === 3) loaded.accounts[key] = fields as CachedAccount
        }
      } else if (kind === 114 /* r */) loaded.rawReads.set(key, text.slice(tab + 1, stop))
    }
    at = stop + 1
  }
  return loaded
}

/**
 * Appends `lines` to `file` (after a newline when it ends in a torn line);
 * `fresh`: (re)starts the file with its first line instead (none yet, or an unreadable one).
 */
export function appendCacheLog(file: string, chainId: bigint, blockNumber: bigint, lines: string[], fresh: boolean, torn = false) {
  const body = `${lines.join('\n')}\n`
  if (!fresh) return appendFileSync(file, torn ? `\n${body}` : body)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, `${magic}\t2\t${chainId}\t${blockNumber}\n${body}`)
}

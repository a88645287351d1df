import { readFileSync } from 'node:fs'
import { type Address, bytesToHex, bytesToUnprefixedHex, createAddressFromString, hexToBytes, unpadBytes } from '../../evm/engine.js'
import type { ForkSource } from '../../evm/forkState.js'
import { keccak256 } from '../../evm/engine.js'
import { type CachedAccount, accountLine, appendCacheLog, cachedAccount, cachedPinHash, otherPin, pinHeaderKey, readCacheLog, readLine, storageLine } from './cacheLog.js'
import type { EarlyHandOver } from './earlyReads.js'
import { legacyCacheFile, pinCacheFile } from './handshake.js'
import { createPrefetch } from './prefetch.js'
import type { Remote } from './remote.js'

type Hex = `0x${string}`

/** What a fork read from the upstream at its pin: the part of the cache a fixture of the fork records. */
export type ForkReads = {
  accounts: Record<string, CachedAccount>
  storage: Record<string, Record<string, Hex>>
  /** Other upstream reads at fixed blocks (headers, blocks, receipts, logs): "method:params" → result. */
  reads: Record<string, unknown>
}

/** The version 1 cache file (one JSON document, `<block>.json`), still read: cacheLog.ts says why it changed. */
type CacheFileV1 = { version: 1; chainId: string; blockNumber: string } & ForkReads

/**
 * The upstream's state and history at one fork block, cached in memory and
 * (with `cacheDir`) on disk under `<cacheDir>/<chainId>/<block>.log` (cacheLog.ts). Every
 * answer is fixed once the block is, so the cache never expires: a second
 * start with the same pin reads what the first read without a remote call.
 */
export function createForkSource(args: {
  remote: Remote
  chainId: bigint
  blockNumber: bigint
  cacheDir: string | undefined
  /** Reads recorded before (a fixture of this fork): answered without the upstream. */
  recorded?: ForkReads | undefined
  /** What the CLI's front read before the node was built (earlyReads.ts): taken over, never asked for again. */
  early?: EarlyHandOver | undefined
  /** The fork block's hash as the upstream answers it now: a disk cache recorded at another hash is dropped (otherPin). */
  pinHash?: string | undefined
}) {
  const { remote, blockNumber } = args
  const pin = `0x${blockNumber.toString(16)}`
  const file = args.cacheDir ? pinCacheFile(args.cacheDir, args.chainId, blockNumber) : undefined
  const early = args.early && (!args.early.pin || (args.early.pin.chainId === args.chainId && args.early.pin.blockNumber === blockNumber)) ? args.early : undefined
  let loaded = early?.loaded ?? (file ? readCacheLog(file, args.chainId, blockNumber) : undefined)
  /** The disk cache was of another chain (otherPin): dropped, and its file started again at the first save. */
  let dropped = loaded !== undefined && otherPin(cachedPinHash(loaded, blockNumber), args.pinHash)
  if (dropped) loaded = undefined
  const cache: ForkReads = { accounts: loaded?.accounts ?? {}, storage: loaded?.storage ?? {}, reads: {} }
  /** Reads on disk not asked for yet, as JSON text. */
  const rawReads = loaded?.rawReads ?? new Map<string, string>()
  /** Lines not yet on disk. */
  let unsaved: string[] = []
  /** Whether the file must be (re)started: there was none, or none this version could read. */
  let fresh = loaded === undefined
  let torn = loaded?.torn ?? false
  let timer: NodeJS.Timeout | undefined
  let legacy = !loaded && !dropped && args.cacheDir ? loadV1(legacyCacheFile(args.cacheDir, args.chainId, blockNumber)) : undefined
  if (legacy && otherPin((legacy.reads[pinHeaderKey(blockNumber)] as { hash?: unknown } | null | undefined)?.hash, args.pinHash)) {
    legacy = undefined
    dropped = true
  }
  // A version 1 file: read once, then written out as a log.
  if (legacy) mergeReads(cache, legacy, unsaved)
  const codeByHash = new Map<string, Uint8Array>()
  const decoded = new Map<string, { nonce: bigint; balance: bigint; codeHash: Uint8Array; code: Uint8Array } | undefined>()

  /** Keeps `line` for the file, written soon (reads come in bursts) and at close. */
  const touch = (line: string) => {
    unsaved.push(line)
    if (!file || timer) return
    timer = setTimeout(save, 500)
    timer.unref()
  }
  function save() {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (!file || unsaved.length === 0) return
    const lines = unsaved
    unsaved = []
    appendCacheLog(file, args.chainId, blockNumber, lines, fresh, torn)
    fresh = false
    torn = false
  }
  /** A read on disk not parsed yet, parsed now. */
  const parsed = (key: string) => {
    const raw = rawReads.get(key)
    if (raw === undefined) return false
    rawReads.delete(key)
    cache.reads[key] = JSON.parse(raw)
    return true
  }
  const parseAll = () => {
    for (const key of [...rawReads.keys()]) parsed(key)
  }
  if (args.recorded) {
    parseAll()
    mergeReads(cache, args.recorded, unsaved)
  }

  const decode = (key: string, entry: CachedAccount) => {
    if (entry === null) return undefined
    const code = codeBytes(entry[2])
    const codeHash = keccak256(code)
    codeByHash.set(bytesToUnprefixedHex(codeHash), code)
    const account = { nonce: BigInt(entry[0]), balance: BigInt(entry[1]), codeHash, code }
    decoded.set(key, account)
    return account
  }

  async function accountEntry(address: Address) {
    const key = address.toString()
    if (decoded.has(key)) return decoded.get(key)
    let entry = cache.accounts[key]
    // Read by the front before the node was built: taken over below (keep), in the order asked.
    if (entry === undefined && early?.accounts.has(key)) entry = (await early.accounts.get(key)) ?? cache.accounts[key]
    if (entry === undefined) {
      const [balance, nonce, code] = await Promise.all([
        remote.request<Hex>('eth_getBalance', [key, pin]),
        remote.request<Hex>('eth_getTransactionCount', [key, pin]),
        remote.request<Hex>('eth_getCode', [key, pin]),
      ])
      entry = cachedAccount(balance, nonce, code)
      // (A read coalesced with another resolves here twice: one line.)
      if (cache.accounts[key] === undefined) {
        cache.accounts[key] = entry
        touch(accountLine(key, entry))
      }
    }
    return decode(key, entry)
  }

  if (early) {
    remote.stats.http += early.stats.http
    remote.stats.requests += early.stats.requests
    for (const [key, read] of early.accounts)
      void read.then((entry) => {
        if (entry === undefined || cache.accounts[key] !== undefined) return
        cache.accounts[key] = entry
        touch(accountLine(key, entry))
      })
    early.source = {
      read: async (address) => {
        await accountEntry(createAddressFromString(address))
        return cache.accounts[address] ?? null
      },
    }
  }

  const source: ForkSource = {
    account: async (address) => {
      const found = await accountEntry(address)
      return found && { nonce: found.nonce, balance: found.balance, codeHash: found.codeHash }
    },
    async code(address, codeHash) {
      const known = codeByHash.get(bytesToUnprefixedHex(codeHash))
      if (known) return known
      return (await accountEntry(address))?.code ?? new Uint8Array()
    },
    async storage(address, key) {
      const a = address.toString()
      const slot = bytesToHex(key)
      let value = cache.storage[a]?.[slot]
      if (value === undefined) {
        prefetch.missed(a, slot)
        value = await remote.request<Hex>('eth_getStorageAt', [a, slot, pin])
        const slots = (cache.storage[a] ??= {})
        if (slots[slot] === undefined) {
          slots[slot] = value
          touch(storageLine(a, slot, value))
        }
      }
      return unpadBytes(hexToBytes(value))
    },
    hasStorage: async (address) => ((await accountEntry(address))?.code.length ?? 0) > 0,
  }

  const prefetch = createPrefetch(source)

  /** An upstream read whose answer is fixed (it names a block at or below the pin), cached like state. */
  async function read<T>(method: string, params: unknown[], keep: (result: T) => boolean = () => true): Promise<T> {
    const key = `${method}:${JSON.stringify(params)}`
    if (key in cache.reads || parsed(key)) return cache.reads[key] as T
    const result = await remote.request<T>(method, params)
    if (keep(result) && !(key in cache.reads)) {
      cache.reads[key] = result
      touch(readLine(key, result))
    }
    return result
  }

  return {
    source,
    read,
    /** Before a transaction runs: asks the upstream for what it will likely read (prefetch.ts). */
    prefetch: prefetch.transaction,
    /** The upstream's block `number` (at or below the pin), without its transactions. */
    header: (number: bigint) =>
      read<Record<string, unknown> | null>('eth_getBlockByNumber', [`0x${number.toString(16)}`, false], (r) => r !== null),
    /** Keeps an upstream answer read elsewhere (the handshake's header of the fork block) as `read` would have. */
    seed(method: string, params: unknown[], result: unknown) {
      const key = `${method}:${JSON.stringify(params)}`
      if (key in cache.reads || rawReads.has(key)) return
      cache.reads[key] = result
      touch(readLine(key, result))
    },
    save,
    /**
     * Everything read so far, keys sorted (reads resolve in whatever order
     * the upstream answers: sorted, the same reads give the same bytes).
     */
    recorded(): ForkReads {
      parseAll()
      const sorted = <T>(o: Record<string, T>, map: (v: T) => T = (v) => v) =>
        Object.fromEntries(Object.keys(o).sort().map((k) => [k, map(o[k]!)])) as Record<string, T>
      return {
        accounts: sorted(cache.accounts),
        storage: sorted(cache.storage, (slots) => sorted(slots)),
        reads: sorted(cache.reads),
      }
    },
    /** Adds reads recorded elsewhere (a fixture of this pin) to what this cache answers. */
    merge(recorded: ForkReads) {
      parseAll()
      const lines: string[] = []
      mergeReads(cache, recorded, lines)
      for (const line of lines) touch(line)
    },
    /** The cache file, when reads are kept on disk. */
    file,
    /** The disk cache held another chain's answers at this chain id and block (its pin's hash differs): it was dropped. */
    dropped,
    close() {
      save()
      remote.close()
    },
  }
}

export type ForkCache = ReturnType<typeof createForkSource>

/**
 * The bytes of a contract's code as cached (`0x` and an even number of hex
 * digits) through Buffer's native decoder, copied out of Buffer's shared
 * pool; anything else through hexToBytes, which pads or throws as before.
 * Why: hexToBytes is a JavaScript loop of one iteration per byte, and the
 * system contracts' code a fork start decodes first (~1 KB) ran it long
 * enough for V8 to compile it on the stack (OSR, on a helper thread) within
 * the start's first hundred ms, holding a core while the engine booted.
 */
export function codeBytes(hex: Hex): Uint8Array {
  return /^0x(?:[0-9a-fA-F]{2})*$/.test(hex) ? new Uint8Array(Buffer.from(hex.slice(2), 'hex')) : hexToBytes(hex)
}

/** Adds the entries of `from` that `into` lacks, and their lines for the cache file to `lines`. */
function mergeReads(into: ForkReads, from: ForkReads, lines: string[]) {
  for (const [key, value] of Object.entries(from.accounts))
    if (!(key in into.accounts)) {
      into.accounts[key] = value
      lines.push(accountLine(key, value))
    }
  for (const [address, slots] of Object.entries(from.storage)) {
    const mine = (into.storage[address] ??= {})
    for (const [slot, value] of Object.entries(slots))
      if (!(slot in mine)) {
        mine[slot] = value
        lines.push(storageLine(address, slot, value))
      }
  }
  for (const [key, value] of Object.entries(from.reads))
    if (!(key in into.reads)) {
      into.reads[key] = value
      lines.push(readLine(key, value))
    }
}

function loadV1(file: string): CacheFileV1 | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as CacheFileV1
    return parsed.version === 1 ? parsed : undefined
  } catch {
    // No file, or a torn one: start empty, it is only a cache.
    return undefined
  }
}

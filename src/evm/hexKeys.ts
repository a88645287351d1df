import { AccountCache, CodeCache, OriginalStorageCache, StorageCache } from '@ethereumjs/statemanager'
import { Account, Address, hexToBytes } from '@ethereumjs/util'
import { evmInternals } from './evmInternals.js'

/*
 * The hex keys of @ethereumjs 10.1's state caches and EVM journal, built in
 * one native step instead of a character pair at a time.
 *
 * The caches (account, storage, code, original storage), the journal's warm
 * sets and touched accounts and Address.toString key everything by the hex
 * of its bytes, made by `bytesToUnprefixedHex`, which on Node 20 (no
 * Uint8Array.prototype.toHex) appends two characters per byte: a chain of 32
 * or 64 rope cells per key, flattened again by the Map lookup that follows.
 * Each SLOAD, SSTORE and account read makes several such keys; in a 100-call
 * eth_simulateV1 of token transfers they were the largest single source of
 * the garbage the GC collects (a quarter of the CPU), and the tree of the
 * caches' OrderedMap compared them character by character.
 *
 * `hexKey` gives the same string (lower case, no prefix), flat, from Node's
 * own hex encoder. The journal's and Address's methods below are the
 * library's with that one call changed; the caches (subclasses, for devnet's
 * own state managers: createCaches in vm.ts) also keep their entries in a
 * Map instead of the OrderedMap, whose order no method of theirs reads.
 */

type HexSlice = (this: Uint8Array, start: number, end: number) => string
const hexSlice = (Buffer.prototype as unknown as { hexSlice?: HexSlice }).hexSlice

const encodeHex: (bytes: Uint8Array) => string =
  typeof hexSlice === 'function'
    ? (bytes) => hexSlice.call(bytes, 0, bytes.length)
    : (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/*
 * The hex of the last few 20-byte keys (addresses), by content: a token call
 * keys the same three or four accounts (sender, token, recipient, coinbase)
 * a few dozen times, each a native call and a new string for the GC.
 * Compared from the last byte (precompiles share 19 leading zeros), a miss
 * is found in a byte or two; a hit costs at most 20 byte compares.
 */
const recentSize = 4
const recentBytes = Array.from({ length: recentSize }, () => new Uint8Array(20))
const recentHex: string[] = Array.from({ length: recentSize }, () => '')
let recentNext = 0
let recentFilled = 0

function addressHex(bytes: Uint8Array): string {
  search: for (let e = 0; e < recentFilled; e++) {
    const seen = recentBytes[e]!
    for (let i = 19; i >= 0; i--) if (seen[i] !== bytes[i]) continue search
    return recentHex[e]!
  }
  const hex = encodeHex(bytes)
  recentBytes[recentNext]!.set(bytes)
  recentHex[recentNext] = hex
  recentNext = (recentNext + 1) % recentSize
  if (recentFilled < recentSize) recentFilled++
  return hex
}

/** `bytesToUnprefixedHex(bytes)`: the same string, flat. */
export const hexKey = (bytes: Uint8Array): string => (bytes.length === 20 ? addressHex(bytes) : encodeHex(bytes))

/** `0x` and the lower-case hex of `bytes`: the string viem's and @ethereumjs's `bytesToHex` give, flat and in one native step. */
export const hexOf = (bytes: Uint8Array): `0x${string}` => `0x${hexKey(bytes)}`

/** Each ASCII code's hex digit value, -1 for a code that is not a hex digit. */
export const digitOf = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) digitOf[48 + i] = i
for (let i = 0; i < 6; i++) digitOf[65 + i] = digitOf[97 + i] = 10 + i

/**
 * `hexToBytes(hex)` of @ethereumjs/util (a regular expression, then a decode a
 * character pair at a time, through a substring and parseInt each): the same
 * bytes for a well-formed `0x` string, decoded by a table in one pass;
 * anything else (odd length, a bad digit, no prefix) goes to `hexToBytes`,
 * which throws its own error. For the short strings of a call (an address, a
 * calldata) the table beats Node's native decoder, whose Buffer view, string
 * slice and native call cost more than the decode: ~1.5 against ~2.5 us for
 * an address and a token transfer's calldata (loaded machine).
 */
export function bytesOfHex(hex: string): Uint8Array {
  const length = hex.length
  if (length % 2 === 0 && hex.charCodeAt(0) === 48 && hex.charCodeAt(1) === 120) {
    const out = new Uint8Array((length - 2) >> 1)
    let i = 2
    for (let j = 0; i < length; i += 2, j++) {
      const high = hex.charCodeAt(i)
      const low = hex.charCodeAt(i + 1)
      const value = high < 128 && low < 128 ? (digitOf[high]! << 4) | digitOf[low]! : -1
      // A -1 digit makes the value negative (-1 << 4 is -16; OR with -1 is -1).
      if (value < 0) break
      out[j] = value
    }
    if (i >= length) return out
  }
  return hexToBytes(hex as `0x${string}`)
}

/** The OrderedMap methods the caches use, on a Map: same answers for every key, without the ordering nobody reads. */
class KeyMap<V> {
  private readonly map = new Map<string, V>()
  getElementByKey(key: string) {
    return this.map.get(key)
  }
  setElement(key: string, value: V) {
    this.map.set(key, value)
    return this.map.size
  }
  eraseElementByKey(key: string) {
    return this.map.delete(key)
  }
  size() {
    return this.map.size
  }
  clear() {
    this.map.clear()
  }
}

type CacheInternals<E> = {
  DEBUG: boolean
  _orderedMapCache: KeyMap<E>
  _lruCache?: unknown
  _stats: { reads: number; hits: number; writes: number; deletions: number }
  _saveCachePreState(addressHex: string, keyHex?: string): void
}
type CacheOpts = ConstructorParameters<typeof AccountCache>[0]
const orderedMap = { type: 'ordered_map' } as const

/**
 * An account cache entry that holds the account's four fields, and encodes
 * the RLP the library's entries hold (`accountRLP`) only when something reads
 * it: the flush into the trie, which a view's state never does. A call puts
 * its sender, recipient and coinbase several times each, and every put
 * encoded an RLP that was never read. The fields are copied at the put (its
 * caller goes on changing the Account it put), as `serialize()` read them.
 */
export class AccountEntry {
  private rlp: Uint8Array | undefined
  constructor(
    readonly nonce: bigint,
    readonly balance: bigint,
    readonly storageRoot: Uint8Array,
    readonly codeHash: Uint8Array,
  ) {}
  get accountRLP(): Uint8Array {
    return (this.rlp ??= this.account().serialize())
  }
  /** A fresh Account with the entry's fields: callers change the one they get. */
  account(): Account {
    return new Account(this.nonce, this.balance, this.storageRoot, this.codeHash)
  }
}

/** AccountCache with flat keys in a Map; put/get/del are the library's bodies (the DEBUG logging left to the library's). */
export class KeyedAccountCache extends AccountCache {
  constructor(opts: CacheOpts) {
    super({ ...opts, ...orderedMap } as CacheOpts)
    ;(this as unknown as CacheInternals<unknown>)._orderedMapCache = new KeyMap()
  }
  override put(address: Address, account: Account | undefined, couldBePartialAccount = false): void {
    const self = this as unknown as CacheInternals<{ accountRLP: Uint8Array | undefined }>
    if (self.DEBUG) return super.put(address, account, couldBePartialAccount)
    const addressHex = hexKey(address.bytes)
    self._saveCachePreState(addressHex)
    // A whole Account keeps its fields (AccountEntry); anything else (a partial account, an object with only
    // `serialize`) is encoded now, as the library does.
    const elem =
      account === undefined
        ? { accountRLP: undefined }
        : !couldBePartialAccount && account instanceof Account
          ? new AccountEntry(account.nonce, account.balance, account.storageRoot, account.codeHash)
          : { accountRLP: couldBePartialAccount ? account.serializeWithPartialInfo() : account.serialize() }
    self._orderedMapCache.setElement(addressHex, elem)
    self._stats.writes += 1
  }
  override get(address: Address) {
    const self = this as unknown as CacheInternals<{ accountRLP: Uint8Array | undefined }>
    if (self.DEBUG) return super.get(address)
    const elem = self._orderedMapCache.getElementByKey(hexKey(address.bytes))
    self._stats.reads += 1
    if (elem) self._stats.hits += 1
    return elem
  }
  override del(address: Address): void {
    const self = this as unknown as CacheInternals<{ accountRLP: Uint8Array | undefined }>
    if (self.DEBUG) return super.del(address)
    const addressHex = hexKey(address.bytes)
    self._saveCachePreState(addressHex)
    self._orderedMapCache.setElement(addressHex, { accountRLP: undefined })
    self._stats.deletions += 1
  }
}

/** CodeCache with flat keys in a Map. */
export class KeyedCodeCache extends CodeCache {
  constructor(opts: CacheOpts) {
    super({ ...opts, ...orderedMap } as CacheOpts)
    ;(this as unknown as CacheInternals<unknown>)._orderedMapCache = new KeyMap()
  }
  override put(address: Address, code: Uint8Array | undefined): void {
    const self = this as unknown as CacheInternals<{ code: Uint8Array | undefined }>
    if (self.DEBUG) return super.put(address, code)
    const addressHex = hexKey(address.bytes)
    self._saveCachePreState(addressHex)
    self._orderedMapCache.setElement(addressHex, { code })
    self._stats.writes += 1
  }
  override get(address: Address) {
    const self = this as unknown as CacheInternals<{ code: Uint8Array | undefined }>
    if (self.DEBUG) return super.get(address)
    const elem = self._orderedMapCache.getElementByKey(hexKey(address.bytes))
    self._stats.reads += 1
    if (elem) self._stats.hits += 1
    return elem
  }
  override del(address: Address): void {
    const self = this as unknown as CacheInternals<{ code: Uint8Array | undefined }>
    if (self.DEBUG) return super.del(address)
    const addressHex = hexKey(address.bytes)
    self._saveCachePreState(addressHex)
    self._orderedMapCache.setElement(addressHex, { code: undefined })
    self._stats.deletions += 1
  }
}

const emptyRlp = Uint8Array.of(0x80)

/** StorageCache with flat keys in a Map. */
export class KeyedStorageCache extends StorageCache {
  constructor(opts: CacheOpts) {
    super({ ...opts, ...orderedMap } as CacheOpts)
    ;(this as unknown as CacheInternals<unknown>)._orderedMapCache = new KeyMap()
  }
  override put(address: Address, key: Uint8Array, value: Uint8Array): void {
    const self = this as unknown as CacheInternals<Map<string, Uint8Array>>
    if (self.DEBUG) return super.put(address, key, value)
    const addressHex = hexKey(address.bytes)
    const keyHex = hexKey(key)
    self._saveCachePreState(addressHex, keyHex)
    const storageMap = self._orderedMapCache.getElementByKey(addressHex) ?? new Map<string, Uint8Array>()
    storageMap.set(keyHex, value)
    self._orderedMapCache.setElement(addressHex, storageMap)
    self._stats.writes += 1
  }
  override get(address: Address, key: Uint8Array): Uint8Array | undefined {
    const self = this as unknown as CacheInternals<Map<string, Uint8Array>>
    if (self.DEBUG) return super.get(address, key)
    const storageMap = self._orderedMapCache.getElementByKey(hexKey(address.bytes))
    self._stats.reads += 1
    if (storageMap) {
      self._stats.hits += 1
      return storageMap.get(hexKey(key))
    }
    return undefined
  }
  override del(address: Address, key: Uint8Array): void {
    const self = this as unknown as CacheInternals<Map<string, Uint8Array>>
    if (self.DEBUG) return super.del(address, key)
    const addressHex = hexKey(address.bytes)
    const keyHex = hexKey(key)
    self._saveCachePreState(addressHex, keyHex)
    const storageMap = self._orderedMapCache.getElementByKey(addressHex) ?? new Map<string, Uint8Array>()
    // The library stores a fresh 0x80 per deletion (hexToBytes('0x80')); each is its own array there too.
    storageMap.set(keyHex, emptyRlp.slice())
    self._orderedMapCache.setElement(addressHex, storageMap)
    self._stats.deletions += 1
  }
  override clearStorage(address: Address): void {
    const self = this as unknown as CacheInternals<Map<string, Uint8Array>>
    self._orderedMapCache.setElement(hexKey(address.bytes), new Map())
  }
  override dump(address: Address): Map<string, Uint8Array> | undefined {
    const self = this as unknown as CacheInternals<Map<string, Uint8Array>>
    return self._orderedMapCache.getElementByKey(hexKey(address.bytes))
  }
}

type OriginalInternals = {
  map: Map<string, Map<string, Uint8Array>>
  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array>
  put(address: Address, key: Uint8Array, value: Uint8Array): void
}

type JournalInternals = {
  journal: Map<string, Set<string>>
  alwaysWarmJournal: Map<string, Set<string>>
  accessList?: Map<string, Set<string>>
  preimages?: unknown
  journalDiff: [number, [Set<string>, Map<string, Set<string>>, Set<string>]][]
  touchAccount(address: string): void
  addWarmedAddress(address: Uint8Array): void
}

let applied = false

/** OriginalStorageCache.prototype.get once the patch below is applied (undefined before). */
let patchedOriginalGet: unknown
let patchedOriginalPut: unknown

/** Whether `cache`'s get and put are this patch's (cachedOriginal reads, and put writes, the map they keep). */
export function originalCacheIsPatched(cache: OriginalStorageCache): boolean {
  const c = cache as unknown as { get: unknown; put: unknown }
  return c.get === patchedOriginalGet && c.put === patchedOriginalPut
}

/**
 * The original value of a slot that `cache` already holds, as its `get`
 * would resolve it, without a promise (the SSTORE gas fast path of
 * opcodeHandlers.ts); undefined when `get` has to run: a miss, or a cache
 * whose `get` is not this patch's.
 */
export function cachedOriginal(cache: OriginalStorageCache, address: Address, key: Uint8Array): Uint8Array | undefined {
  const internals = cache as unknown as OriginalInternals & { get: unknown }
  if (internals.get !== patchedOriginalGet) return undefined
  return internals.map.get(hexKey(address.bytes))?.get(hexKey(key))
}

/**
 * The process patch: OriginalStorageCache.get/put, the journal's warm-set
 * methods and touchAddress, and Address.toString, each the library's body
 * with `hexKey` for `bytesToUnprefixedHex`.
 */
export function applyHexKeys() {
  if (applied) return
  applied = true

  const original = OriginalStorageCache.prototype as unknown as OriginalInternals
  original.put = function (this: OriginalInternals, address, key, value) {
    const addressHex = hexKey(address.bytes)
    let map = this.map.get(addressHex)
    if (map === undefined) {
      map = new Map()
      this.map.set(addressHex, map)
    }
    const keyHex = hexKey(key)
    if (!map.has(keyHex)) map.set(keyHex, value)
  }
  ;(original as unknown as { get: OriginalInternals['getStorage'] }).get = async function (this: OriginalInternals, address, key) {
    const map = this.map.get(hexKey(address.bytes))
    if (map !== undefined) {
      const value = map.get(hexKey(key))
      if (value !== undefined) return value
    }
    const value = await this.getStorage(address, key)
    this.put(address, key, value)
    return value
  }
  patchedOriginalGet = (original as unknown as { get: unknown }).get
  patchedOriginalPut = original.put

  ;(Address.prototype as { toString(): string }).toString = function (this: Address) {
    return `0x${hexKey(this.bytes)}`
  }

  const { Journal } = evmInternals.journal as { Journal: { prototype: JournalInternals & Record<string, unknown> } }
  const journal = Journal.prototype
  journal.touchAddress = function (this: JournalInternals, address: { bytes: Uint8Array }) {
    this.touchAccount(hexKey(address.bytes))
  }
  journal.isWarmedAddress = function (this: JournalInternals, address: Uint8Array) {
    const addressHex = hexKey(address)
    return this.journal.has(addressHex) || this.alwaysWarmJournal.has(addressHex)
  }
  journal.addWarmedAddress = function (this: JournalInternals, addressArr: Uint8Array) {
    const address = hexKey(addressArr)
    if (!this.journal.has(address)) {
      this.journal.set(address, new Set())
      this.journalDiff[this.journalDiff.length - 1]![1][0].add(address)
    }
    if (this.accessList !== undefined && !this.accessList.has(address)) this.accessList.set(address, new Set())
  }
  journal.isWarmedStorage = function (this: JournalInternals, address: Uint8Array, slot: Uint8Array) {
    const addressHex = hexKey(address)
    const slots = this.journal.get(addressHex)
    if (slots === undefined) {
      const warm = this.alwaysWarmJournal.get(addressHex)
      return warm !== undefined && warm.has(hexKey(slot))
    }
    const slotHex = hexKey(slot)
    if (slots.has(slotHex)) return true
    const warm = this.alwaysWarmJournal.get(addressHex)
    return warm !== undefined && warm.has(slotHex)
  }
  journal.addWarmedStorage = function (this: JournalInternals, address: Uint8Array, slot: Uint8Array) {
    const addressHex = hexKey(address)
    let slots = this.journal.get(addressHex)
    if (slots === undefined) {
      this.addWarmedAddress(address)
      slots = this.journal.get(addressHex)!
    }
    const slotStr = hexKey(slot)
    if (!slots.has(slotStr)) {
      slots.add(slotStr)
      const addressSlotMap = this.journalDiff[this.journalDiff.length - 1]![1][1]
      let slotsSet = addressSlotMap.get(addressHex)
      if (slotsSet === undefined) addressSlotMap.set(addressHex, (slotsSet = new Set()))
      slotsSet.add(slotStr)
    }
    if (this.accessList !== undefined) this.accessList.get(addressHex)!.add(slotStr)
  }
}

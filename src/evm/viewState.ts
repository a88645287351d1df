import { type Caches, MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { Account, type Address, createAccountFromRLP, equalsBytes, unpadBytes } from '@ethereumjs/util'
import { AccountEntry } from './hexKeys.js'

/**
 * The state manager of a view's call VM: state at a fixed root that every
 * call changes inside a checkpoint and reverts afterwards.
 *
 * ethereumjs's caches journal every entry put during a checkpoint, reads
 * included, so the revert at the end of each call also forgets everything the
 * call read: the next call walks the trie again (node lookups, RLP decoding,
 * keccak) for the same accounts and slots, two thirds of a token balanceOf.
 * This subclass reads what its own caches do not hold through `base`, a
 * read-only state manager at the same root that never checkpoints and so
 * stays warm, and otherwise behaves as the MerkleStateManager it is: writes,
 * checkpoints and reverts are the parent's.
 *
 * Reading through is only valid while this copy's account still has the
 * storage root / code hash `base` has for it: a call that cleared an
 * account's storage (CREATE over it, a `state` override) or replaced its code
 * reads its own trie, as the parent would.
 */
export class ViewStateManager extends MerkleStateManager {
  constructor(
    private readonly base: MerkleStateManager,
    opts: MerkleStateManagerOpts,
  ) {
    super(opts)
  }

  private baseAccounts() {
    return (this.base as unknown as { _caches?: Caches })._caches?.account
  }

  private cached(address: Address) {
    return this._caches?.account?.get(address)
  }

  /**
   * The read-only state this one reads through, when this copy holds nothing
   * of its own for `address`: every read and write of an account, its code or
   * its storage goes through the account cache first, and a revert takes out
   * what the reverted runs put there, so without an entry the account, its
   * code and its storage are the base's. Undefined when this copy has its own.
   */
  baseFor(address: Address): MerkleStateManager | undefined {
    return this.cached(address) === undefined ? this.base : undefined
  }

  /*
   * The caches hold accounts as RLP, so the parent decodes an account on
   * every read and encodes it on every write: a token call reads the sender,
   * the callee and the coinbase a dozen times, and that coding was a fifth of
   * it. Reads here decode each cached RLP once (`accountOf`), writes remember
   * what they wrote, and a first read takes the base's RLP as it is.
   */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const own = this.cached(address)
    if (own instanceof AccountEntry) return own.account()
    if (own !== undefined) return own.accountRLP === undefined ? undefined : accountOf(own.accountRLP)
    let theirs = this.baseAccounts()?.get(address)
    if (theirs === undefined) {
      const account = await this.base.getAccount(address)
      theirs = this.baseAccounts()?.get(address)
      if (theirs === undefined) {
        this._caches?.account?.put(address, account)
        return account
      }
    }
    if (theirs instanceof AccountEntry) {
      this._caches?.account?.put(address, theirs.account())
      return theirs.account()
    }
    const rlp = theirs.accountRLP
    // The cache stores `serialize()`'s bytes; these are the base's, already encoded and never changed in place.
    this._caches?.account?.put(address, rlp === undefined ? undefined : ({ serialize: () => rlp } as Account))
    return rlp === undefined ? undefined : accountOf(rlp)
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    await super.putAccount(address, account)
    const entry = account === undefined ? undefined : this.cached(address)
    // A keyed cache keeps the fields themselves (hexKeys.ts); the library's holds the RLP just encoded.
    const rlp = entry === undefined || entry instanceof AccountEntry ? undefined : entry.accountRLP
    if (rlp !== undefined && account !== undefined) decoded.set(rlp, copyOf(account))
  }

  /**
   * What getStorage answers for a slot this copy's cache holds, without a
   * promise (the SLOAD fast path of opcodeHandlers.ts); undefined when
   * getStorage has to run.
   */
  cachedStorage(address: Address, key: Uint8Array): Uint8Array | undefined {
    const cached = key.length === 32 ? this._caches?.storage?.get(address, key) : undefined
    return cached === undefined ? undefined : (RLP.decode(cached) as Uint8Array)
  }

  /**
   * The account getAccount answers at once, from this copy's own cache entry
   * (a fresh object, as getAccount gives); undefined when getAccount has to
   * run (no entry of its own) or the account does not exist.
   */
  cachedAccount(address: Address): Account | undefined {
    const own = this.cached(address)
    if (own instanceof AccountEntry) return own.account()
    return own?.accountRLP === undefined ? undefined : accountOf(own.accountRLP)
  }

  /**
   * SSTORE's `interpreter.storageStore` (without EIP-7928), when the
   * account is in this copy's cache: putStorage's checks and cache write
   * (statePatches.ts; its key is a word and its value at most one, from the
   * handler) and the account storageStore then reads for the frame, without
   * a promise. Undefined, having done nothing, when storageStore has to run.
   */
  storeCached(address: Address, key: Uint8Array, value: Uint8Array): Account | undefined {
    const storage = this._caches?.storage
    if (storage === undefined || key.length !== 32 || value.length > 32) return undefined
    const account = this.cachedAccount(address)
    if (account === undefined) return undefined
    storage.put(address, key, RLP.encode(unpadBytes(value)))
    return account
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const cached = key.length === 32 ? this._caches?.storage?.get(address, key) : undefined
    // A slot this copy holds: the parent's answer (its cache hit), without looking the slot up again.
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    if (key.length === 32) {
      const own = await this.getAccount(address)
      if (!own) return new Uint8Array()
      const theirs = await this.base.getAccount(address)
      if (theirs && equalsBytes(own.storageRoot, theirs.storageRoot)) {
        const value = await this.base.getStorage(address, key)
        // The cache holds RLP-encoded values, as the parent stores them.
        this._caches?.storage?.put(address, key, encodeStorage(value))
        return value
      }
    }
    return super.getStorage(address, key)
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    if (this._caches?.code?.get(address) === undefined) {
      const own = await this.getAccount(address)
      if (!own || !own.isContract()) return new Uint8Array()
      const theirs = await this.base.getAccount(address)
      if (theirs && equalsBytes(own.codeHash, theirs.codeHash)) {
        const code = await this.base.getCode(address)
        this._caches?.code?.put(address, code)
        return code
      }
    }
    return super.getCode(address)
  }
}

/** RLP of a storage value as the trie holds it (0x80 for empty), without a round trip through the encoder for the common short cases. */
function encodeStorage(value: Uint8Array): Uint8Array {
  if (value.length === 0) return Uint8Array.of(0x80)
  if (value.length === 1 && value[0]! < 0x80) return value
  const out = new Uint8Array(value.length + 1)
  out[0] = 0x80 + value.length
  out.set(value, 1)
  return out
}

/** Accounts decoded from (or written as) the RLP bytes a cache entry holds; entries go with the bytes. */
const decoded = new WeakMap<Uint8Array, Account>()

const copyOf = (a: Account) => new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)

/** The account `rlp` encodes, as a fresh object: callers change what they get and put it back. */
function accountOf(rlp: Uint8Array): Account {
  let account = decoded.get(rlp)
  if (account === undefined) decoded.set(rlp, (account = createAccountFromRLP(rlp)))
  return copyOf(account)
}

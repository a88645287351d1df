import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, KECCAK256_RLP, concatBytes, hexToBytes, unpadBytes } from '@ethereumjs/util'
import { keccak256 } from './keccak.js'
import { applyLazyPatch } from './patches/registry.js'

/**
 * What a forked state reads from the upstream chain at the fork block. Every
 * answer is fixed (the fork block never changes), so the source may cache it
 * anywhere: memory, disk.
 */
export type ForkSource = {
  /** The account at the fork block; undefined when it is empty (no nonce, no balance, no code). */
  account(address: Address): Promise<{ nonce: bigint; balance: bigint; codeHash: Uint8Array } | undefined>
  /** The code at `address` at the fork block (whose hash is `codeHash`). */
  code(address: Address, codeHash: Uint8Array): Promise<Uint8Array>
  /** A storage word at the fork block, without leading zeros (empty for zero). */
  storage(address: Address, key: Uint8Array): Promise<Uint8Array>
  /** Whether the account can hold storage at the fork block (it has code). */
  hasStorage(address: Address): Promise<boolean>
}

/*
 * A forked state is devnet's own Merkle trie (so every local block has a real
 * state root of its own) that starts almost empty and is filled from the
 * upstream as it is read: a getAccount, getStorage or getCode that misses in
 * the local trie asks the ForkSource, and puts the answer in the state's
 * cache, from where the next flush writes it into the trie like any other
 * entry. A root therefore holds every account and slot read or written up to
 * it; what it does not hold is still the upstream's value at the fork block.
 *
 * One case needs more: the trie deletes a slot set to zero and an account
 * deleted, so "missing locally" would wrongly read the upstream's non-zero
 * value again. Such deletions of upstream data leave a tombstone, a flag in
 * the storage of a reserved account ({@link tombstoneAddress}) under
 * keccak(address ‖ slot) or keccak(address). Being state, the flags are part
 * of each root: they revert with snapshots and reorgs, and a read at an older
 * root sees the flags of that root.
 *
 * Applied once to the MerkleStateManager prototype, as the engine patch
 * `fork-state` of src/evm/patches/registry.ts (lazily, when the first fork
 * opens); a state is forked when its trie database was registered with
 * {@link attachFork}, which every copy of it (views, VMs, storage tries)
 * shares.
 */

/**
 * The account whose storage holds the tombstones: keccak("devnet.fork.tombstones")[12:] (test/fork/fork.test.ts
 * hashes it again). Written out: hashing it when the module loads was the only hash before the WebAssembly keccak is
 * ready, and so loaded the native one at every start (src/evm/keccak.ts).
 */
export const tombstoneAddress = new Address(hexToBytes('0xc17e95f52ceb66b29e7386b2c7a4d3014d6f9e6b'))

const one = RLP.encode(Uint8Array.of(1))
const empty = Uint8Array.of(0x80)
const slotKey = (address: Address, key: Uint8Array) => keccak256(concatBytes(address.bytes, key))
const accountKey = (address: Address) => keccak256(address.bytes)

type State = MerkleStateManager & {
  _trie: { get(key: Uint8Array): Promise<Uint8Array | null>; database(): { get(key: Uint8Array): Promise<Uint8Array | undefined> } }
  _getStorageTrie(address: Address, account: Account): { get(key: Uint8Array): Promise<Uint8Array | null> }
  _prefixCodeHashes: boolean
  _caches?: {
    account?: { get(address: Address): { accountRLP?: Uint8Array } | undefined; put(address: Address, account: Account | undefined): void }
    storage?: { get(address: Address, key: Uint8Array): Uint8Array | undefined; put(address: Address, key: Uint8Array, value: Uint8Array): void }
    code?: { get(address: Address): { code?: Uint8Array } | undefined; put(address: Address, code: Uint8Array): void }
  }
}

const sources = new WeakMap<object, ForkSource>()

const storeOf = (state: State) => {
  const db = (state as unknown as { _trie: { database(): { db: { _database?: object } } } })._trie.database().db
  return db._database ?? db
}

/** The fork source of `state`'s trie database, if it is a forked state. */
export function forkOf(state: MerkleStateManager): ForkSource | undefined {
  return sources.get(storeOf(state as State))
}

/**
 * Makes `state` (and every copy of it, past or future) a forked state over
 * `source`, and writes the tombstone account into it: call once on the empty
 * state the fork's base block is built on, then take its root.
 */
export async function attachFork(state: MerkleStateManager, source: ForkSource): Promise<void> {
  enableForkState()
  sources.set(storeOf(state as State), source)
  // Nonce 1: never empty, so never removed as an empty touched account (EIP-161).
  await state.putAccount(tombstoneAddress, new Account(1n, 0n))
}

async function tombstoned(state: State, key: Uint8Array) {
  return (await state.getStorage(tombstoneAddress, key)).length > 0
}

async function setTombstone(state: State, key: Uint8Array, on: boolean) {
  if (!on && !(await tombstoned(state, key))) return
  state._caches?.storage?.put(tombstoneAddress, key, on ? one : empty)
}

type Proto = {
  getAccount(this: State, address: Address): Promise<Account | undefined>
  putAccount(this: State, address: Address, account: Account | undefined): Promise<void>
  deleteAccount(this: State, address: Address): Promise<void>
  getStorage(this: State, address: Address, key: Uint8Array): Promise<Uint8Array>
  putStorage(this: State, address: Address, key: Uint8Array, value: Uint8Array): Promise<void>
  getCode(this: State, address: Address): Promise<Uint8Array>
  __devnetFork?: boolean
}

/**
 * Installs the fork-aware reads and writes (the registry's `fork-state`
 * patch, checked against its fingerprint first). Lazily, on the first fork: a
 * process that never forks keeps the library's methods (and their speed)
 * untouched. Must run before the forked state is constructed, which binds
 * getStorage for its original-value cache.
 */
export function enableForkState(): void {
  applyLazyPatch('fork-state')
}

/** The upstream methods `fork-state` wraps, in the order its fingerprint hashes them. */
export function forkStateUpstream(): unknown[] {
  const proto = MerkleStateManager.prototype as unknown as Proto
  return [proto.getAccount, proto.putAccount, proto.deleteAccount, proto.getStorage, proto.putStorage, proto.getCode]
}

/** Replaces the six methods on the MerkleStateManager prototype; the registry calls it once (applyLazyPatch). */
export function applyForkState(): void {
  const proto = MerkleStateManager.prototype as unknown as Proto
  if (!proto.__devnetFork) {
    const { getAccount, putAccount, deleteAccount, getStorage, putStorage, getCode } = proto

    proto.getAccount = async function (address) {
      const source = forkOf(this)
      if (source === undefined || this._caches?.account?.get(address) !== undefined || address.equals(tombstoneAddress))
        return getAccount.call(this, address)
      // The trie is asked first: the library would cache a miss as "no account", and a failed upstream read must not leave that behind.
      if ((await this._trie.get(address.bytes)) !== null) return getAccount.call(this, address)
      if (await tombstoned(this, accountKey(address))) return getAccount.call(this, address)
      const remote = await source.account(address)
      // Storage stays upstream until read (getStorage below); the local storage trie starts empty.
      const account = remote && new Account(remote.nonce, remote.balance, KECCAK256_RLP, remote.codeHash)
      this._caches?.account?.put(address, account)
      return account
    }

    proto.putAccount = async function (address, account) {
      await putAccount.call(this, address, account)
      const source = forkOf(this)
      if (source === undefined || address.equals(tombstoneAddress)) return
      if (account === undefined) {
        if ((await source.account(address)) !== undefined) await setTombstone(this, accountKey(address), true)
      }
    }

    proto.deleteAccount = async function (address) {
      await deleteAccount.call(this, address)
      const source = forkOf(this)
      if (source === undefined || address.equals(tombstoneAddress)) return
      if ((await source.account(address)) !== undefined) await setTombstone(this, accountKey(address), true)
    }

    proto.getStorage = async function (address, key) {
      const source = forkOf(this)
      if (source === undefined || this._caches?.storage?.get(address, key) !== undefined || address.equals(tombstoneAddress))
        return getStorage.call(this, address, key)
      const account = await this.getAccount(address)
      // As for accounts, the trie first: a miss the library cached as zero would outlive a failed upstream read.
      if (account === undefined || (await this._getStorageTrie(address, account).get(key)) !== null) return getStorage.call(this, address, key)
      if (!(await source.hasStorage(address)) || (await tombstoned(this, slotKey(address, key)))) return getStorage.call(this, address, key)
      const remote = await source.storage(address, key)
      this._caches?.storage?.put(address, key, remote.length > 0 ? RLP.encode(remote) : empty)
      return remote
    }

    proto.putStorage = async function (address, key, value) {
      await putStorage.call(this, address, key, value)
      const source = forkOf(this)
      if (source === undefined || address.equals(tombstoneAddress) || !(await source.hasStorage(address))) return
      // Zero deletes the slot from the local trie: without the flag a later read would find the upstream's value.
      await setTombstone(this, slotKey(address, key), unpadBytes(value).length === 0)
    }

    proto.getCode = async function (address) {
      const source = forkOf(this)
      if (source !== undefined && this._caches?.code?.get(address) === undefined) {
        const account = await this.getAccount(address)
        if (account?.isContract()) {
          const key = this._prefixCodeHashes ? concatBytes(Uint8Array.of(0x63), account.codeHash) : account.codeHash
          if ((await this._trie.database().get(key)) === undefined) {
            // Upstream code (its account came from the fork block): read it there, keep it like code read locally.
            const code = await source.code(address, account.codeHash)
            this._caches?.code?.put(address, code)
            return code
          }
        }
      }
      return getCode.call(this, address)
    }

    proto.__devnetFork = true
  }
}

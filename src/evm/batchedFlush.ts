import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, type Address, createAddressFromString, unprefixedHexToBytes } from '@ethereumjs/util'
import { batchUpdate } from './batchTrieUpdate.js'
import { patchActive } from './patches/registry.js'

type StateInternals = {
  _caches?: {
    code?: { flush(): [string, { code?: Uint8Array }][] }
    storage?: { flush(): [string, string, Uint8Array | undefined][] }
    account?: { flush(): [string, { accountRLP?: Uint8Array }][] }
  }
  _trie: MerklePatriciaTrie
  _prefixCodeHashes: boolean
  keccakFunction(data: Uint8Array): Uint8Array
  _getCodeDB(): { put(key: Uint8Array, value: Uint8Array): Promise<void> }
  _getStorageTrie(address: Address, account: Account): MerklePatriciaTrie
  getAccount(address: Address): Promise<Account | undefined>
  putAccount(address: Address, account: Account): Promise<void>
  modifyAccountFields(address: Address, fields: { codeHash: Uint8Array }): Promise<void>
  flush(): Promise<void>
}

const CODEHASH_PREFIX = new TextEncoder().encode('c')

/**
 * Makes `state` write its caches into its tries with one batched update per
 * trie (batchTrieUpdate.ts): each contract's changed slots into its storage
 * trie, then every changed account into the account trie. ethereumjs's flush
 * does one put or del per slot and per account, each re-hashing its whole
 * path, and stores each contract's account again after every slot. The
 * values written, and so every node and root, are the same.
 *
 * Code is written as ethereumjs writes it.
 */
export function batchFlush(state: MerkleStateManager): void {
  if (!patchActive('batched-flush')) return
  const s = state as unknown as StateInternals
  s.flush = async function flush() {
    const codeItems = s._caches?.code?.flush() ?? []
    for (const [addressHex, { code }] of codeItems) {
      if (code === undefined) continue
      const address = createAddressFromString(`0x${addressHex}`)
      const codeHash = s.keccakFunction(code)
      const key = s._prefixCodeHashes ? concat(CODEHASH_PREFIX, codeHash) : codeHash
      await s._getCodeDB().put(key, code)
      if ((await s.getAccount(address)) === undefined) await s.putAccount(address, new Account())
      await s.modifyAccountFields(address, { codeHash })
    }

    const storageItems = s._caches?.storage?.flush() ?? []
    const byAccount = new Map<string, { key: Uint8Array; value: Uint8Array | null }[]>()
    for (const [addressHex, keyHex, value] of storageItems) {
      let slots = byAccount.get(addressHex)
      if (!slots) byAccount.set(addressHex, (slots = []))
      // As ethereumjs: the cache holds RLP(value); an empty value deletes the slot.
      const decoded = RLP.decode(value ?? new Uint8Array(0))
      slots.push({
        key: unprefixedHexToBytes(keyHex),
        value: decoded instanceof Uint8Array && decoded.length > 0 ? RLP.encode(decoded) : null,
      })
    }
    for (const [addressHex, slots] of byAccount) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await s.getAccount(address)
      // ethereumjs skips the slots of an account that no longer exists.
      if (!account) continue
      const storageTrie = s._getStorageTrie(address, account)
      account.storageRoot = await batchUpdate(storageTrie, slots)
      await s.putAccount(address, account)
    }

    const accountItems = s._caches?.account?.flush() ?? []
    if (accountItems.length > 0)
      await batchUpdate(
        s._trie,
        accountItems.map(([addressHex, elem]) => ({ key: unprefixedHexToBytes(addressHex), value: elem.accountRLP ?? null })),
      )
  }
}

function concat(a: Uint8Array, b: Uint8Array) {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

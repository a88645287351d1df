import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, type Address, createAccountFromRLP } from '@ethereumjs/util'
import { encodeAccount } from './accountCodec.js'
import { AccountEntry } from './hexKeys.js'

/*
 * MerkleStateManager's account cache holds each account as its RLP, so every
 * getAccount decodes it again (RLP decode, two bigints, a new Account) and
 * every putAccount encodes it: an ETH transfer reads its sender, recipient
 * and coinbase about ten times (admission, the pool's nonce check, runTx,
 * the EVM call, the journal's cleanup, the miner reward), and the decoding
 * was about 5 % of its CPU. Here an RLP that this process encoded from an
 * account (Account.serialize, which the cache's put uses) or decoded once
 * keeps that account's fields beside it, and a cache hit builds the Account
 * from them without decoding. Each caller still gets its own Account (they
 * change the one they get, then put it back); the fields are bigints and the
 * 32-byte root and code hash, which ethereumjs never writes into (the
 * default storage root is one shared constant). The RLP itself is written
 * by src/evm/accountCodec.ts, in one array. Applied once to
 * @ethereumjs/util and @ethereumjs/statemanager (10.1) by the patch registry (patches/registry.ts).
 */
type Fields = { nonce: bigint; balance: bigint; storageRoot: Uint8Array; codeHash: Uint8Array }
const fieldsOf = new WeakMap<Uint8Array, Fields>()

type AccountPrototype = { serialize(): Uint8Array; __devnetMemo?: boolean }
type StatePrototype = {
  getAccount(address: Address): Promise<Account | undefined>
  _caches?: { account?: { get(address: Address): { accountRLP: Uint8Array | undefined } | undefined } }
  __devnetAccountMemo?: boolean
}

export function applyAccountMemo() {
  const accountPrototype = Account.prototype as unknown as AccountPrototype & Account
  if (!accountPrototype.__devnetMemo) {
    const serialize = accountPrototype.serialize
    accountPrototype.serialize = function (this: Account) {
      const rlp = encodeAccount(this.nonce, this.balance, this.storageRoot, this.codeHash) ?? serialize.call(this)
      fieldsOf.set(rlp, { nonce: this.nonce, balance: this.balance, storageRoot: this.storageRoot, codeHash: this.codeHash })
      return rlp
    }
    accountPrototype.__devnetMemo = true
  }

  const statePrototype = MerkleStateManager.prototype as unknown as StatePrototype
  if (!statePrototype.__devnetAccountMemo) {
    const getAccount = statePrototype.getAccount
    statePrototype.getAccount = async function (this: StatePrototype, address: Address) {
      const elem = this._caches?.account?.get(address)
      if (elem === undefined) return getAccount.call(this, address)
      // A keyed cache's entry holds the fields themselves (hexKeys.ts).
      if (elem instanceof AccountEntry) return elem.account()
      const rlp = elem.accountRLP
      if (rlp === undefined) return undefined
      let fields = fieldsOf.get(rlp)
      if (fields === undefined) {
        // As MerkleStateManager.getAccount does (createAccountFromRLP), once per RLP.
        const decoded = createAccountFromRLP(rlp)
        fields = { nonce: decoded.nonce, balance: decoded.balance, storageRoot: decoded.storageRoot, codeHash: decoded.codeHash }
        fieldsOf.set(rlp, fields)
        return decoded
      }
      return new Account(fields.nonce, fields.balance, fields.storageRoot, fields.codeHash)
    }
    statePrototype.__devnetAccountMemo = true
  }
}

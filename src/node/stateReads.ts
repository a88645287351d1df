import type { Address, Hex } from 'viem'
import { readAccount, readCode, readStorageWord, readStorageWords, stateProof } from './stateAccess.js'
import type { MerkleStateManager } from '../evm/engine.js'
import type { BlockId, View } from './views.js'

/** What the reads use: the views, and the pool's next nonce for `pending`. */
export type StateReadParts = {
  views: { resolve(id: BlockId): View; reader(view: View): MerkleStateManager }
  nextNonce(from: Address, start: bigint): bigint
}

/**
 * Account state at any block as node operations (eth_getBalance,
 * eth_getTransactionCount, eth_getCode, eth_getStorageAt,
 * eth_getStorageValues, eth_getProof), as Anvil's backend answers them:
 * each resolves the block once and reads an isolated copy of its state.
 * `pending` reads the pre-confirmed state.
 */
export function createStateReads(parts: StateReadParts) {
  const { views } = parts
  const reader = (id: BlockId) => views.reader(views.resolve(id))
  return {
    getBalance: async (address: Address, id: BlockId) => (await readAccount(reader(id), address))?.balance ?? 0n,
    /**
     * The account's nonce; on `pending` also past the sender's pooled
     * transactions, so a nonce never goes backwards (viem asks for it before
     * every send).
     */
    async getTransactionCount(address: Address, id: BlockId): Promise<bigint> {
      const view = views.resolve(id)
      const nonce = (await readAccount(views.reader(view), address))?.nonce ?? 0n
      return view.kind === 'pending' ? parts.nextNonce(address, nonce) : nonce
    },
    getCode: (address: Address, id: BlockId) => readCode(reader(id), address),
    getStorageAt: (address: Address, slot: Hex, id: BlockId) => readStorageWord(reader(id), address, slot),
    /** The words of each address's slots, in request order, read from one state. */
    async getStorageValues(request: readonly { address: Address; slots: readonly Hex[] }[], id: BlockId): Promise<Hex[][]> {
      const state = reader(id)
      const out: Hex[][] = []
      for (const { address, slots } of request) out.push(await readStorageWords(state, address, slots))
      return out
    },
    /** The account's and the slots' Merkle proofs (EIP-1186); `emptyStorage` when the storage trie is empty. */
    getProof: (address: Address, keys: readonly Hex[], id: BlockId) => stateProof(reader(id), address, keys),
  }
}

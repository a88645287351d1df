import type { Address, Client, Hash, Hex } from 'viem'
import { numberToHex } from 'viem'
import type { DevnetRequestFn } from './schema.js'
import type { BlockSummary, DevnetFixture, DevnetFixtureV2 } from './wireTypes.js'

/**
 * devnet's own JSON-RPC methods as viem actions, for any viem client pointed
 * at a devnet (`createTestClient(...).extend(devnetActions)`): seal and
 * pre-confirm, reorgs, token cheats, fixtures. Like src/payments, this talks
 * to devnet only over JSON-RPC.
 */
export type DevnetActions = {
  /** Seals a block now (devnet_seal). */
  seal(): Promise<{ number: bigint; hash: Hash }>
  /** Runs a pre-confirmation tick now (devnet_preconfirm): the pending block takes the pool's executable transactions. */
  preconfirm(): Promise<{ number: bigint; index: number; transactions: Hash[] }>
  /**
   * Replaces the top `depth` blocks (devnet_reorg). Without `transactions` the replaced blocks' transactions go back
   * to the pool; with it (signed raw transactions, one list, or one list per block) only those are mined.
   */
  reorg(args: { depth: number; transactions?: Hex[] | Hex[][] }): Promise<{
    removed: { number: bigint; hash: Hash }[]
    added: { number: bigint; hash: Hash }[]
  }>
  /** Drops pre-confirmed transactions (all without `hashes`; devnet_dropPreconfirmed). */
  dropPreconfirmed(args?: { hashes?: Hash[] }): Promise<{ dropped: Hash[]; requeued: Hash[] }>
  /** Sets a holder's payment-token balance, moving totalSupply by the difference (devnet_setTokenBalance). */
  setTokenBalance(args: { address: Address; amount: bigint }): Promise<void>
  /** Pauses or unpauses the payment token (devnet_setTokenPaused). */
  setTokenPaused(args: { paused: boolean }): Promise<void>
  /** Blacklists or clears an account on the payment token (devnet_setTokenBlacklisted). */
  setTokenBlacklisted(args: { address: Address; blacklisted: boolean }): Promise<void>
  /** The chain as a fixture object (devnet_dumpFixture). */
  dumpFixture(args?: { path?: undefined }): Promise<DevnetFixture>
  /** Writes the chain as a fixture file to `path` on the devnet's machine (devnet_dumpFixture). */
  dumpFixture(args: { path: string }): Promise<{ path: string; bytes: number }>
  /** Replaces the chain by a fixture (a path on the devnet's machine, or the object; devnet_loadFixture). */
  loadFixture(args: {
    fixture: string | DevnetFixture | DevnetFixtureV2
    options?: { verifyState?: boolean | undefined }
  }): Promise<{ number: bigint; hash: Hash; blocks: number }>
}

/** A block summary on the wire, as native numbers. */
const block = (b: BlockSummary) => ({ number: BigInt(b.number), hash: b.hash })

/** Decorates a viem client with devnet's actions: `client.extend(devnetActions)`. */
export function devnetActions(client: Pick<Client, 'request'>): DevnetActions {
  // The client's own schema (viem's public or test one) has no devnet_* methods; devnet's types them.
  const request = client.request as DevnetRequestFn
  return {
    async seal() {
      return block(await request({ method: 'devnet_seal' }))
    },
    async preconfirm() {
      const r = await request({ method: 'devnet_preconfirm' })
      return { number: BigInt(r.number), index: r.index, transactions: r.transactions }
    },
    async reorg({ depth, transactions }) {
      const r = await request({ method: 'devnet_reorg', params: [{ depth, ...(transactions === undefined ? {} : { transactions }) }] })
      return { removed: r.removed.map(block), added: r.added.map(block) }
    },
    dropPreconfirmed(args = {}) {
      return request({ method: 'devnet_dropPreconfirmed', params: args.hashes ? [args.hashes] : [] })
    },
    async setTokenBalance({ address, amount }) {
      await request({ method: 'devnet_setTokenBalance', params: [address, numberToHex(amount)] })
    },
    async setTokenPaused({ paused }) {
      await request({ method: 'devnet_setTokenPaused', params: [paused] })
    },
    async setTokenBlacklisted({ address, blacklisted }) {
      await request({ method: 'devnet_setTokenBlacklisted', params: [address, blacklisted] })
    },
    // One method, two answers (the fixture, or where it was written): the overloads of DevnetActions say which.
    dumpFixture: ((args: { path?: string | undefined } = {}) =>
      args.path === undefined
        ? request({ method: 'devnet_dumpFixture' })
        : request({ method: 'devnet_dumpFixture', params: [args.path] })) as DevnetActions['dumpFixture'],
    async loadFixture({ fixture, options }) {
      const r = await request({ method: 'devnet_loadFixture', params: options ? [fixture, options] : [fixture] })
      return { number: BigInt(r.number), hash: r.hash, blocks: r.blocks }
    },
  }
}

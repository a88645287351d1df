import { maxTokenBalance } from '../../node/stateAccess.js'
import { ArgError, address, bool, quantity } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'

/**
 * Token cheats: devnet_setTokenBalance, devnet_setTokenPaused,
 * devnet_setTokenBlacklisted. They write the payment token's storage directly
 * (no owner, pauser or blacklister key needed), like Anvil's `deal` does for
 * balances (node operations, src/node/cheats.ts): `latest` sees the change at once, and the
 * pre-confirmed transactions run again on top of it, so `pending` does too (a
 * pre-confirmed transfer the change makes revert is re-run and reverts).
 *
 * Each returns `null`, as Anvil's state cheats (`anvil_setBalance`,
 * `anvil_setStorageAt`'s siblings) do.
 *
 * @example
 * ```json
 * >> {"method":"devnet_setTokenBalance","params":["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","0x5f5e100"]}
 * << {"result":null}
 * >> {"method":"devnet_setTokenPaused","params":[true]}
 * >> {"method":"devnet_setTokenBlacklisted","params":["0x7099…79c8",true]}
 * ```
 *
 * ## totalSupply
 * devnet_setTokenBalance moves `totalSupply()` by the balance's difference.
 * Anvil's `deal` leaves the supply alone, but a USDC-like token keeps
 * `sum(balanceOf) == totalSupply()` (mint and burn move both), and indexers
 * and reconciliation tests check exactly that; a cheat that broke it would
 * produce states the real token can never reach.
 */
export const tokenMethods: MethodDef[] = [
  defineMethod({
    method: 'devnet_setTokenBalance',
    params: [address, units],
    handler: async ({ node }, [holder, amount]) => {
      await node.setTokenBalance(holder, amount)
      return null
    },
  }),
  defineMethod({
    method: 'devnet_setTokenPaused',
    params: [bool],
    handler: async ({ node }, [paused]) => {
      await node.setTokenPaused(paused)
      return null
    },
  }),
  defineMethod({
    method: 'devnet_setTokenBlacklisted',
    params: [address, bool],
    handler: async ({ node }, [account, blacklisted]) => {
      await node.setTokenBlacklisted(account, blacklisted)
      return null
    },
  }),
]

/**
 * A token amount in base units (6 decimals for the USDC-like token): a hex
 * quantity, a decimal string, or a safe integer. At most 2^255 - 1, since bit
 * 255 of the balance word is the blacklist flag.
 */
function units(value: unknown): bigint {
  let amount: bigint
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new ArgError(`token amount must be an integer, got ${value}`)
    amount = BigInt(value)
  } else if (typeof value === 'string' && /^[0-9]+$/.test(value)) amount = BigInt(value)
  else amount = quantity(value)
  if (amount < 0n || amount > maxTokenBalance) throw new ArgError(`token amount out of range [0, 2^255 - 1]: ${amount}`)
  return amount
}

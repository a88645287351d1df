import { encodeFunctionData, isAddressEqual } from 'viem'
import { smartAccountAbi } from '../artifacts/smartAccount.js'
import { spendPermissionManagerAbi } from '../artifacts/spendPermissionManager.js'
import { accountOf } from './send.js'
import { type SpendPermission, toSpendPermissionStruct } from './spendPermission.js'
import { submitCall } from './submit.js'

export declare namespace revokeSpendPermission {
  type Options = submitCall.Options & { permission: SpendPermission }
}

/**
 * Revokes a permission for good. Sent by the spender's wallet it calls
 * `revokeAsSpender`; sent by anyone else (the account's owner) it goes
 * through the account: `account.execute(manager, 0, revoke(permission))`,
 * which only the owner may call. Works before the first charge too: a
 * revoked permission can never be approved.
 *
 * - JSON-RPC methods: those of sending a transaction
 */
export async function revokeSpendPermission(options: revokeSpendPermission.Options): Promise<submitCall.ReturnType> {
  const { permission } = options
  const manager = permission.domain.verifyingContract
  const struct = toSpendPermissionStruct(permission)
  if (isAddressEqual(accountOf(options.wallet).address, permission.spender))
    return submitCall(
      'spend-permission revoke',
      {
        to: manager,
        data: encodeFunctionData({ abi: spendPermissionManagerAbi, functionName: 'revokeAsSpender', args: [struct] }),
      },
      options,
    )
  const revoke = encodeFunctionData({ abi: spendPermissionManagerAbi, functionName: 'revoke', args: [struct] })
  return submitCall(
    'spend-permission revoke',
    {
      to: permission.account,
      data: encodeFunctionData({ abi: smartAccountAbi, functionName: 'execute', args: [manager, 0n, revoke] }),
    },
    options,
  )
}

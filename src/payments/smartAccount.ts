import { type Address, encodeAbiParameters, encodeFunctionData, getAddress, getContractAddress, keccak256 } from 'viem'
import { getCode } from 'viem/actions'
import { smartAccountBytecode } from '../artifacts/smartAccount.js'
import { smartAccountFactoryAbi } from '../artifacts/smartAccountFactory.js'
import { predeployAddresses } from '../config/predeploys.js'
import { submitCall } from './submit.js'

export declare namespace getSmartAccountAddress {
  type Options = {
    owner: Address
    /** Several accounts per owner. @default 0n (the one devnet deploys at genesis) */
    index?: bigint | undefined
    /** @default the devnet predeploy */
    factory?: Address | undefined
    /** The manager the factory's accounts trust. @default the devnet predeploy */
    spendPermissionManager?: Address | undefined
  }
}

/**
 * The CREATE2 address of an owner's smart account, computed offline:
 * `salt = keccak256(abi.encode(owner, index))`,
 * `initCode = SmartAccount creation code ‖ abi.encode(owner, manager)`.
 * On devnet every dev account's index-0 account exists from genesis; any
 * other owner's can receive tokens before {@link createSmartAccount}.
 */
export function getSmartAccountAddress(options: getSmartAccountAddress.Options): Address {
  const owner = getAddress(options.owner)
  const manager = getAddress(options.spendPermissionManager ?? predeployAddresses.spendPermissionManager)
  const salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, options.index ?? 0n]))
  const bytecode = `${smartAccountBytecode}${encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [owner, manager]).slice(2)}` as const
  return getContractAddress({
    opcode: 'CREATE2',
    from: getAddress(options.factory ?? predeployAddresses.smartAccountFactory),
    salt,
    bytecode,
  })
}

export declare namespace createSmartAccount {
  type Options = submitCall.Options & {
    owner: Address
    index?: bigint | undefined
    factory?: Address | undefined
  }
  type ReturnType = { address: Address; deployed: boolean; receipt?: submitCall.ReturnType['receipt'] | undefined }
}

/**
 * Deploys the owner's account through the factory unless it has code
 * already (anyone may pay for it: the address depends only on the owner and
 * the index). Returns the address and whether a transaction was sent.
 *
 * - JSON-RPC methods: `eth_getCode`, then those of sending a transaction
 */
export async function createSmartAccount(options: createSmartAccount.Options): Promise<createSmartAccount.ReturnType> {
  const factory = getAddress(options.factory ?? predeployAddresses.smartAccountFactory)
  const index = options.index ?? 0n
  const address = getSmartAccountAddress({ owner: options.owner, index, factory })
  const code = await getCode(options.client ?? options.wallet, { address, blockTag: 'pending' })
  if (code && code !== '0x') return { address, deployed: false }
  const { receipt } = await submitCall(
    'smart account creation',
    {
      to: factory,
      data: encodeFunctionData({ abi: smartAccountFactoryAbi, functionName: 'createAccount', args: [options.owner, index] }),
    },
    options,
  )
  return { address, deployed: true, receipt }
}

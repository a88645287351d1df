import type { Common } from '@ethereumjs/common'
import { createEVM, type EVM } from '@ethereumjs/evm'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { encodeDeployData, encodeFunctionData, getAddress } from 'viem/utils'
import { permitCheckoutBytecode } from '../artifacts/permitCheckout.js'
import { smartAccountFactoryAbi, smartAccountFactoryBytecode } from '../artifacts/smartAccountFactory.js'
import { spendPermissionManagerBytecode } from '../artifacts/spendPermissionManager.js'
import { predeployAddresses } from '../config/predeploys.js'
import type { GenesisAccount } from './genesis.js'
import { toWord } from './tokenSlots.js'

/** Throwaway deployer: its CREATE addresses are discarded, code and storage kept. */
const deployer = createAddressFromString('0x000000000000000000000000000000000000dE92')
const gasLimit = 30_000_000n

/**
 * The payment-path contracts as genesis alloc entries: the permit checkout,
 * the spend-permission manager, the smart-account factory (all at
 * {@link predeployAddresses}) and one smart account (index 0) per owner,
 * at the address the factory's CREATE2 gives it.
 *
 * As for the token (see buildTokenGenesis), the real constructors run in a
 * throwaway EVM and the real `createAccount` deploys the accounts, so code and
 * storage are what the contracts write, not a guess at their layout. None of
 * the contracts has immutables, so runtime code moves to its fixed address
 * unchanged; the accounts are created by the factory already at its address,
 * so their CREATE2 addresses are the ones the factory reports on chain.
 */
export async function buildPaymentContractsGenesis(
  common: Common,
  options: { owners: readonly Address[] },
): Promise<GenesisAccount[]> {
  const stateManager = new MerkleStateManager({ common })
  const evm = await createEVM({ common, stateManager })
  // The state trie keeps only hashed keys: record every SSTORE's address and slot.
  const written = new Map<string, Set<Hex>>()
  const putStorage = stateManager.putStorage.bind(stateManager)
  stateManager.putStorage = (address, key, value) => {
    const at = address.toString()
    let slots = written.get(at)
    if (!slots) written.set(at, (slots = new Set()))
    slots.add(toWord(BigInt(bytesToHex(key))))
    return putStorage(address, key, value)
  }

  const placed: Address[] = []
  const place = async (at: Address, creation: Hex) => {
    const result = await evm.runCall({ caller: deployer, data: hexToBytes(creation), gasLimit, skipBalance: true })
    const scratch = result.createdAddress
    if (result.execResult.exceptionError || !scratch)
      throw new Error(`payment contracts genesis: constructor of ${at} failed`)
    const target = createAddressFromString(at)
    await stateManager.putCode(target, await stateManager.getCode(scratch))
    for (const slot of written.get(scratch.toString()) ?? []) {
      const value = await stateManager.getStorage(scratch, hexToBytes(slot))
      if (value.length > 0) await stateManager.putStorage(target, hexToBytes(slot), value)
    }
    placed.push(at)
  }

  const { permitCheckout, smartAccountFactory, spendPermissionManager } = predeployAddresses
  await place(permitCheckout, permitCheckoutBytecode)
  await place(spendPermissionManager, spendPermissionManagerBytecode)
  await place(
    smartAccountFactory,
    encodeDeployData({ abi: smartAccountFactoryAbi, bytecode: smartAccountFactoryBytecode, args: [spendPermissionManager] }),
  )
  for (const owner of options.owners) placed.push(await createAccount(evm, owner))

  const alloc: GenesisAccount[] = []
  for (const address of placed) {
    const at = createAddressFromString(address)
    const storage: [Hex, Hex][] = []
    for (const slot of [...(written.get(at.toString()) ?? [])].sort()) {
      const value = await stateManager.getStorage(at, hexToBytes(slot))
      if (value.length > 0) storage.push([slot, toWord(BigInt(bytesToHex(value)))])
    }
    // EIP-161: a contract starts at nonce 1, as a CREATE/CREATE2 deployment would leave it.
    alloc.push({ address, code: bytesToHex(await stateManager.getCode(at)), storage, nonce: 1n })
  }
  return alloc
}

/** Runs `factory.createAccount(owner, 0)` and returns the account's address. */
async function createAccount(evm: EVM, owner: Address): Promise<Address> {
  const result = await evm.runCall({
    caller: deployer,
    to: createAddressFromString(predeployAddresses.smartAccountFactory),
    data: hexToBytes(
      encodeFunctionData({ abi: smartAccountFactoryAbi, functionName: 'createAccount', args: [owner, 0n] }),
    ),
    gasLimit,
    skipBalance: true,
  })
  if (result.execResult.exceptionError)
    throw new Error(`payment contracts genesis: createAccount(${owner}) failed`)
  return getAddress(bytesToHex(result.execResult.returnValue.slice(12, 32)))
}

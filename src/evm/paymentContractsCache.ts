import type { Common } from '@ethereumjs/common'
import type { Address, Hex } from 'viem'
import { permitCheckoutDeployedBytecode } from '../artifacts/permitCheckout.js'
import { smartAccountBytecode, smartAccountDeployedBytecode } from '../artifacts/smartAccount.js'
import { smartAccountFactoryDeployedBytecode } from '../artifacts/smartAccountFactory.js'
import { spendPermissionManagerDeployedBytecode } from '../artifacts/spendPermissionManager.js'
import { predeployAddresses } from '../config/predeploys.js'
import type { GenesisAccount } from './genesis.js'
import { buildPaymentContractsGenesis } from './paymentContracts.js'
import { checksumAddress, create2Address } from './address.js'
import { cachedGenesisPart, isStorageWords } from './genesisDiskCache.js'
import { keccak256 } from './keccak.js'

/** Bump when buildPaymentContractsGenesis changes what it computes for the same inputs. */
const format = 1

/** Runtime code by position in the alloc: checkout, manager, factory, then one account per owner. */
const codeAt = (index: number): Hex =>
  [permitCheckoutDeployedBytecode, spendPermissionManagerDeployedBytecode, smartAccountFactoryDeployedBytecode][index] ??
  smartAccountDeployedBytecode

/**
 * buildPaymentContractsGenesis, kept on disk between processes like the
 * token's genesis (genesisDiskCache.ts): running four constructors and a
 * CREATE2 per dev account costs about twice the token's build, paid by every
 * process that starts a node. The file is named by a hash of every input
 * (all four runtime codes, chain id, hardfork, owners). Only addresses and
 * storage are stored; the code is the artifact's, so a tampered file cannot
 * place other code, and a malformed one is ignored and the alloc built.
 */
export function cachedPaymentContractsGenesis(
  common: Common,
  options: { owners: readonly Address[] },
): Promise<GenesisAccount[]> {
  return cachedGenesisPart({
    name: 'payment-contracts-genesis',
    inputs: [
      format,
      [permitCheckoutDeployedBytecode, spendPermissionManagerDeployedBytecode, smartAccountFactoryDeployedBytecode, smartAccountDeployedBytecode],
      predeployAddresses,
      common.chainId().toString(),
      common.hardfork(),
      options.owners,
    ],
    build: () => buildPaymentContractsGenesis(common, options),
    toFile: (built) => ({ entries: built.map(({ address, storage }) => [address, storage ?? []]) }),
    fromFile: (parsed) => fromEntries(parsed, options.owners),
  })
}

/** The CREATE2 address the factory gives `owner`'s index-0 account (as the library computes it). */
function accountAddress(owner: Address): Address {
  // ABI words written out: viem's encodeAbiParameters checks each address's checksum with its pure-JS keccak.
  const word = (address: Address) => address.slice(2).toLowerCase().padStart(64, '0')
  const salt = keccak256(Buffer.from(`${word(owner)}${'0'.repeat(64)}`, 'hex')) // abi.encode(owner, 0)
  const args = `${word(owner)}${word(predeployAddresses.spendPermissionManager)}` // abi.encode(owner, manager)
  return create2Address(predeployAddresses.smartAccountFactory, `0x${Buffer.from(salt).toString('hex')}`, `${smartAccountBytecode}${args}`)
}

function fromEntries(parsed: unknown, owners: readonly Address[]): GenesisAccount[] | undefined {
  const entries = (parsed as { entries?: unknown } | null)?.entries
  if (!Array.isArray(entries) || entries.length !== 3 + owners.length) return undefined
  const alloc: GenesisAccount[] = []
  for (const [index, entry] of entries.entries()) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(entry[0])) return undefined
    const storage = entry[1] as unknown
    if (!isStorageWords(storage)) return undefined
    alloc.push({ address: checksumAddress(entry[0]), code: codeAt(index), storage, nonce: 1n })
  }
  // Every entry sits where the build would put it; anything else is a foreign file.
  const expected = [
    predeployAddresses.permitCheckout,
    predeployAddresses.spendPermissionManager,
    predeployAddresses.smartAccountFactory,
    ...owners.map(accountAddress),
  ]
  if (expected.some((address, i) => alloc[i]!.address !== checksumAddress(address))) return undefined
  return alloc
}

import type { Common } from '@ethereumjs/common'
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Address, Hex } from 'viem'
import { encodeAbiParameters, getAddress, getContractAddress, isAddress, keccak256 } from 'viem/utils'
import { permitCheckoutDeployedBytecode } from '../artifacts/permitCheckout.js'
import { smartAccountBytecode, smartAccountDeployedBytecode } from '../artifacts/smartAccount.js'
import { smartAccountFactoryDeployedBytecode } from '../artifacts/smartAccountFactory.js'
import { spendPermissionManagerDeployedBytecode } from '../artifacts/spendPermissionManager.js'
import { predeployAddresses } from '../config/predeploys.js'
import type { GenesisAccount } from './genesis.js'
import { buildPaymentContractsGenesis } from './paymentContracts.js'
import { cacheDir } from './tokenGenesisCache.js'

/** Bump when buildPaymentContractsGenesis changes what it computes for the same inputs. */
const format = 1
const word = /^0x[0-9a-f]{64}$/

/** Runtime code by position in the alloc: checkout, manager, factory, then one account per owner. */
const codeAt = (index: number): Hex =>
  [permitCheckoutDeployedBytecode, spendPermissionManagerDeployedBytecode, smartAccountFactoryDeployedBytecode][index] ??
  smartAccountDeployedBytecode

/**
 * buildPaymentContractsGenesis, kept on disk between processes like the
 * token's genesis (tokenGenesisCache.ts): running four constructors and a
 * CREATE2 per dev account costs about twice the token's build, paid by every
 * process that starts a node. The file is named by a hash of every input
 * (all four runtime codes, chain id, hardfork, owners). Only addresses and
 * storage are stored; the code is the artifact's, so a tampered file cannot
 * place other code, and a malformed one is ignored and the alloc built.
 */
export async function cachedPaymentContractsGenesis(
  common: Common,
  options: { owners: readonly Address[] },
): Promise<GenesisAccount[]> {
  const dir = cacheDir()
  if (!dir) return buildPaymentContractsGenesis(common, options)
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        format,
        [permitCheckoutDeployedBytecode, spendPermissionManagerDeployedBytecode, smartAccountFactoryDeployedBytecode, smartAccountDeployedBytecode],
        predeployAddresses,
        common.chainId().toString(),
        common.hardfork(),
        options.owners,
      ]),
    )
    .digest('hex')
  const file = join(dir, `payment-contracts-genesis-${key}.json`)
  const cached = read(file, options.owners)
  if (cached) return cached
  const built = await buildPaymentContractsGenesis(common, options)
  try {
    const partial = `${file}.${process.pid}.tmp`
    const entries = built.map(({ address, storage }) => [address, storage ?? []])
    writeFileSync(partial, JSON.stringify({ entries }), { mode: 0o600 })
    renameSync(partial, file)
  } catch {
    // A cache that cannot be written only costs the next start its build.
  }
  return built
}

/** The CREATE2 address the factory gives `owner`'s index-0 account (as the library computes it). */
function accountAddress(owner: Address): Address {
  const manager = predeployAddresses.spendPermissionManager
  const args = encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [owner, manager])
  return getContractAddress({
    opcode: 'CREATE2',
    from: predeployAddresses.smartAccountFactory,
    salt: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, 0n])),
    bytecode: `${smartAccountBytecode}${args.slice(2)}`,
  })
}

function read(file: string, owners: readonly Address[]): GenesisAccount[] | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
  const entries = (parsed as { entries?: unknown } | null)?.entries
  if (!Array.isArray(entries) || entries.length !== 3 + owners.length) return undefined
  const alloc: GenesisAccount[] = []
  for (const [index, entry] of entries.entries()) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !isAddress(entry[0])) return undefined
    const storage = entry[1] as unknown
    if (!Array.isArray(storage)) return undefined
    for (const pair of storage)
      if (!Array.isArray(pair) || pair.length !== 2 || !word.test(pair[0]) || !word.test(pair[1])) return undefined
    alloc.push({ address: getAddress(entry[0]), code: codeAt(index), storage: storage as [Hex, Hex][], nonce: 1n })
  }
  // Every entry sits where the build would put it; anything else is a foreign file.
  const expected = [
    predeployAddresses.permitCheckout,
    predeployAddresses.spendPermissionManager,
    predeployAddresses.smartAccountFactory,
    ...owners.map(accountAddress),
  ]
  if (expected.some((address, i) => alloc[i]!.address !== getAddress(address))) return undefined
  return alloc
}

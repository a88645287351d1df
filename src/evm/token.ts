import type { Common } from '@ethereumjs/common'
import { createEVM, type EVM } from '@ethereumjs/evm'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import {
  type Address as EthAddress,
  bytesToHex,
  createAddressFromString,
  hexToBytes,
} from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import { decodeErrorResult, encodeDeployData, encodeFunctionData, getAddress } from 'viem/utils'
import {
  paymentTokenAbi,
  paymentTokenBytecode,
  paymentTokenDeployedBytecode,
} from '../artifacts/paymentToken.js'
import { toWord } from './tokenSlots.js'

/** What the genesis predeploy of the payment token is made of. */
export type TokenGenesisOptions = {
  /** Where the token lives, e.g. Base Sepolia USDC `0x036CbD…dCF7e`. */
  address: Address
  /**
   * ERC-20 `name()`, also the EIP-712 domain name ("USDC" on Base Sepolia,
   * "USD Coin" on Base).
   */
  name: string
  symbol: string
  owner: Address
  masterMinter: Address
  pauser: Address
  blacklister: Address
  /** Initial balances in base units (6 decimals), minted in order; zeros skipped. */
  holders: { address: Address; units: bigint }[]
}

/** The token as a genesis alloc entry: runtime code and every non-zero storage word. */
export type TokenGenesis = {
  address: Address
  code: Hex
  /** Sorted by slot; both sides are 32-byte hex words. */
  storage: [slot: Hex, value: Hex][]
}

/** Token currency, as USDC's `currency()`. */
const currency = 'USD'
const decimals = 6
/** Throwaway deployer: its CREATE address is discarded, code and storage kept. */
const deployer = createAddressFromString('0x000000000000000000000000000000000000dE91')
const gasLimit = 30_000_000n

/**
 * Builds the payment token's genesis predeploy: the runtime code and the full
 * initial storage with the roles set, each holder's balance minted and
 * `totalSupply` equal to their sum.
 *
 * It runs the real constructor and the real `mint` path in a throwaway EVM, so
 * the storage is what the contract itself would write, not a guess at its
 * layout: the creation code runs at a scratch address, the runtime code and
 * constructor storage are moved to `options.address`, and then, as USDC's
 * deployment does, the blacklister blacklists the token itself (so tokens
 * cannot be sent to the token contract) and the master minter configures
 * itself as a minter for exactly the total, mints to each holder and removes
 * itself again, leaving no minter behind. Storage slots are collected from the
 * SSTOREs the EVM executes, because the state trie only keeps hashed keys.
 *
 * The result is deterministic. The runtime code does not depend on the address
 * or the chain (no immutables; the EIP-712 domain separator is computed at call
 * time from `block.chainid` and `address(this)`); only the mapping slot of the
 * token's own blacklist flag depends on `options.address`.
 *
 * @example
 * const genesis = await buildTokenGenesis(common, {
 *   address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
 *   name: 'USDC',
 *   symbol: 'USDC',
 *   owner, masterMinter: owner, pauser: owner, blacklister: owner,
 *   holders: [{ address: alice, units: 1_000_000_000n }],
 * })
 */
export async function buildTokenGenesis(
  common: Common,
  options: TokenGenesisOptions,
): Promise<TokenGenesis> {
  const stateManager = new MerkleStateManager({ common })
  const evm = await createEVM({ common, stateManager })
  const token = createAddressFromString(getAddress(options.address))

  // Every slot an SSTORE touches, as a 32-byte word; values are read at the end. SSTORE
  // reaches the state manager's putStorage; recording there instead of in a `step`
  // listener spares the interpreter a step event per opcode (most of the build's time).
  const slots = new Set<Hex>()
  const putStorage = stateManager.putStorage.bind(stateManager)
  stateManager.putStorage = (address, key, value) => {
    slots.add(toWord(BigInt(bytesToHex(key))))
    return putStorage(address, key, value)
  }

  const deployData = encodeDeployData({
    abi: paymentTokenAbi,
    bytecode: paymentTokenBytecode,
    args: [
      options.name,
      options.symbol,
      currency,
      decimals,
      options.masterMinter,
      options.pauser,
      options.blacklister,
      options.owner,
    ],
  })
  const created = await evm.runCall({
    caller: deployer,
    data: hexToBytes(deployData),
    gasLimit,
    skipBalance: true,
  })
  assertSuccess(created.execResult, 'constructor')
  const scratch = created.createdAddress
  if (!scratch) throw new Error('PaymentToken genesis: constructor created no contract')

  const code = await stateManager.getCode(scratch)
  if (bytesToHex(code) !== paymentTokenDeployedBytecode)
    throw new Error('PaymentToken genesis: deployed code differs from artifact')
  await stateManager.putCode(token, code)
  for (const slot of slots) {
    const value = await stateManager.getStorage(scratch, hexToBytes(slot))
    if (value.length > 0) await stateManager.putStorage(token, hexToBytes(slot), value)
  }

  const call = (from: Address, data: Hex, what: string) =>
    callToken(evm, token, from, data, what)
  await call(
    options.blacklister,
    encodeFunctionData({
      abi: paymentTokenAbi,
      functionName: 'blacklist',
      args: [getAddress(options.address)],
    }),
    'blacklist(token)',
  )
  const holders = options.holders.filter((h) => h.units !== 0n)
  const total = holders.reduce((sum, h) => sum + h.units, 0n)
  if (holders.length > 0) {
    await call(
      options.masterMinter,
      encodeFunctionData({
        abi: paymentTokenAbi,
        functionName: 'configureMinter',
        args: [options.masterMinter, total],
      }),
      'configureMinter',
    )
    for (const holder of holders)
      await call(
        options.masterMinter,
        encodeFunctionData({
          abi: paymentTokenAbi,
          functionName: 'mint',
          args: [holder.address, holder.units],
        }),
        `mint(${holder.address}, ${holder.units})`,
      )
    await call(
      options.masterMinter,
      encodeFunctionData({
        abi: paymentTokenAbi,
        functionName: 'removeMinter',
        args: [options.masterMinter],
      }),
      'removeMinter',
    )
  }

  const storage: [Hex, Hex][] = []
  for (const slot of [...slots].sort()) {
    const value = await stateManager.getStorage(token, hexToBytes(slot))
    // Slots written back to zero (the temporary minter) are absent, as on chain.
    if (value.length > 0) storage.push([slot, toWord(BigInt(bytesToHex(value)))])
  }
  return {
    address: getAddress(options.address),
    code: paymentTokenDeployedBytecode,
    storage,
  }
}

async function callToken(
  evm: EVM,
  token: EthAddress,
  from: Address,
  data: Hex,
  what: string,
) {
  const result = await evm.runCall({
    caller: createAddressFromString(from),
    to: token,
    data: hexToBytes(data),
    gasLimit,
    skipBalance: true,
  })
  assertSuccess(result.execResult, what)
}

type CallResult = {
  exceptionError?: { error: string } | undefined
  returnValue: Uint8Array
}

/** Throws with the decoded `Error(string)` reason when a setup call failed. */
function assertSuccess(result: CallResult, what: string) {
  if (!result.exceptionError) return
  let reason: string = result.exceptionError.error
  try {
    const decoded = decodeErrorResult({
      abi: paymentTokenAbi,
      data: bytesToHex(result.returnValue),
    })
    reason = String(decoded.args?.[0] ?? decoded.errorName)
  } catch {
    // Not an Error(string) revert: keep the EVM's own error name.
  }
  throw new Error(`PaymentToken genesis: ${what} failed: ${reason}`)
}

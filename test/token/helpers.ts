import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createBlock } from '@ethereumjs/block'
import { Common, createCustomCommon, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex, createAccount, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import {
  type Abi,
  type Address,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  numberToHex,
  parseSignature,
  type PrivateKeyAccount,
  stringToHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { smartWalletAbi, smartWalletBytecode } from '../../src/artifacts/smartWallet.js'
import { installEngine } from '../../src/evm/patches/registry.js'
import { buildTokenGenesis, type TokenGenesis, type TokenGenesisOptions } from '../../src/evm/token.js'
import type { ReadSlot } from '../../src/evm/tokenSlots.js'

/** A test account that also keeps its key, to sign transactions. */
export type Actor = PrivateKeyAccount & { privateKey: Hex }

/** Fixed test keys: deterministic addresses make failures reproducible. */
function account(n: number): Actor {
  const privateKey = numberToHex(0x7e57_0000n + BigInt(n), { size: 32 })
  return Object.assign(privateKeyToAccount(privateKey), { privateKey })
}

/** The cast of the behaviour table (Alice pays Bob, Charlie relays, David is a stranger) plus the token's roles. */
export const actors = {
  owner: account(1),
  masterMinter: account(2),
  pauser: account(3),
  blacklister: account(4),
  minter: account(5),
  alice: account(10),
  bob: account(11),
  charlie: account(12),
  david: account(13),
  deployer: account(20),
} as const

/** Default token address: Base Sepolia USDC, so the code is exercised where x402 expects it. */
export const baseSepoliaUsdc: Address = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'

/** Start time of every harness (seconds); tests move it with `setTimestamp`. */
export const startTimestamp = 1_750_000_000n

/** Starting token balance of Alice and of her smart wallet (10 USDC), as in Circle's tests. */
export const initialUnits = 10_000_000n

/** Path of a file under the sibling `shared/` directory, or undefined when it is absent (clone without shared/). */
export function sharedFile(path: string): string | undefined {
  const file = fileURLToPath(new URL(`../../../shared/${path}`, import.meta.url))
  return existsSync(file) ? file : undefined
}

/** Reads a JSON file from `shared/` (call only when {@link sharedFile} found it). */
export function readShared<T>(path: string): T {
  const file = sharedFile(path)
  if (!file) throw new Error(`shared/${path} is missing`)
  return JSON.parse(readFileSync(file, 'utf8')) as T
}

/** A decoded token (or wallet) event. */
export type DecodedEvent = { address: Address; eventName: string; args: Record<string, unknown> }

/** What a transaction did: status, gas, decoded events, and the revert string if any. */
export type Outcome = {
  status: 'success' | 'reverted'
  gasUsed: bigint
  events: DecodedEvent[]
  /** `Error(string)` message, or the EVM error name when the revert carries no string. */
  revert: string | undefined
  returnData: Hex
}

export type HarnessOptions = {
  chainId?: number | undefined
  address?: Address | undefined
  name?: string | undefined
  holders?: TokenGenesisOptions['holders'] | undefined
}

export type Harness = Awaited<ReturnType<typeof createHarness>>

const genesisCache = new Map<string, Promise<TokenGenesis>>()

/**
 * An osaka VM with the token predeployed from {@link buildTokenGenesis}
 * (Alice holding {@link initialUnits}), the minter configured, and a
 * {@link smartWalletAbi} wallet owned by Alice and funded with the same
 * amount: the ERC-1271 payer of the behaviour table. Transactions are real
 * signed EIP-1559 txs run with `runTx`, so gas figures include intrinsic cost.
 */
export async function createHarness(options: HarnessOptions = {}) {
  // devnet's engine (its patches of @ethereumjs), or stock @ethereumjs under DEVNET_ENGINE=stock: npm test runs both.
  installEngine()
  const chainId = options.chainId ?? 1
  const common =
    chainId === 1
      ? new Common({ chain: Mainnet, hardfork: 'osaka' })
      : createCustomCommon({ chainId }, Mainnet, { hardfork: 'osaka' })
  const vm = await createVM({ common })
  const token = options.address ?? baseSepoliaUsdc
  const genesisOptions: TokenGenesisOptions = {
    address: token,
    name: options.name ?? 'USDC',
    symbol: 'USDC',
    owner: actors.owner.address,
    masterMinter: actors.masterMinter.address,
    pauser: actors.pauser.address,
    blacklister: actors.blacklister.address,
    holders: options.holders ?? [{ address: actors.alice.address, units: initialUnits }],
  }
  const key = JSON.stringify(genesisOptions, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
  if (!genesisCache.has(key)) genesisCache.set(key, buildTokenGenesis(common, genesisOptions))
  const genesis = await genesisCache.get(key)!
  const tokenAddress = createAddressFromString(token)
  await vm.stateManager.putAccount(tokenAddress, createAccount({ nonce: 1n, balance: 0n }))
  await vm.stateManager.putCode(tokenAddress, hexToBytes(genesis.code))
  for (const [slot, value] of genesis.storage)
    await vm.stateManager.putStorage(tokenAddress, hexToBytes(slot), hexToBytes(value))
  for (const actor of Object.values(actors))
    await vm.stateManager.putAccount(createAddressFromString(actor.address), createAccount({ balance: 10n ** 21n }))

  let timestamp = startTimestamp
  let number = 1n

  function block() {
    return createBlock(
      { header: { number, timestamp, gasLimit: 60_000_000n, baseFeePerGas: 1n, coinbase: `0x${'c0'.repeat(20)}` } },
      { common },
    )
  }

  async function send(from: Actor, to: Address | undefined, data: Hex, abi: Abi = paymentTokenAbi): Promise<Outcome> {
    const sender = createAddressFromString(from.address)
    const nonce = (await vm.stateManager.getAccount(sender))?.nonce ?? 0n
    const tx = createFeeMarket1559Tx(
      { chainId: BigInt(chainId), nonce, maxFeePerGas: 10n, maxPriorityFeePerGas: 0n, gasLimit: 5_000_000n, to, data },
      { common },
    ).sign(hexToBytes(from.privateKey))
    const result = await runTx(vm, { tx, block: block(), skipBlockGasLimitValidation: true })
    number++
    const returnData = bytesToHex(result.execResult.returnValue)
    const events = (result.receipt.logs ?? []).map(([address, topics, logData]) => {
      const decoded = decodeEventLog({
        abi: [...paymentTokenAbi, ...smartWalletAbi, ...abi],
        topics: topics.map((t) => bytesToHex(t)) as [Hex, ...Hex[]],
        data: bytesToHex(logData),
      })
      return {
        address: bytesToHex(address) as Address,
        eventName: decoded.eventName,
        args: (decoded.args ?? {}) as Record<string, unknown>,
      }
    })
    const error = result.execResult.exceptionError
    return {
      status: error ? 'reverted' : 'success',
      gasUsed: result.totalGasSpent,
      events,
      revert: error ? revertReason(returnData, error.error) : undefined,
      returnData,
    }
  }

  /** Sends a token call: `write(from, 'transfer', [to, 1n])`. Overloads resolve from the args. */
  function write(from: Actor, functionName: string, args: readonly unknown[]): Promise<Outcome> {
    const data = encodeFunctionData({ abi: paymentTokenAbi, functionName, args } as never)
    return send(from, token, data)
  }

  /** eth_call on the token at the current timestamp. */
  async function read<T = unknown>(functionName: string, args: readonly unknown[] = [], abi: Abi = paymentTokenAbi, to: Address = token): Promise<T> {
    const data = encodeFunctionData({ abi, functionName, args } as never)
    const result = await vm.evm.runCall({
      to: createAddressFromString(to),
      caller: createAddressFromString(actors.david.address),
      data: hexToBytes(data),
      gasLimit: 5_000_000n,
      block: block(),
      skipBalance: true,
    })
    const returnData = bytesToHex(result.execResult.returnValue)
    if (result.execResult.exceptionError)
      throw new Error(`read ${functionName} reverted: ${revertReason(returnData, result.execResult.exceptionError.error)}`)
    return decodeFunctionResult({ abi, functionName, data: returnData } as never) as T
  }

  const readSlot: ReadSlot = async (slot) => {
    const value = await vm.stateManager.getStorage(tokenAddress, hexToBytes(slot))
    return value.length === 0 ? 0n : BigInt(bytesToHex(value))
  }

  /** Writes raw token storage, as a devnet cheat would. */
  async function writeSlots(writes: [slot: Hex, value: bigint][]) {
    for (const [slot, value] of writes)
      await vm.stateManager.putStorage(tokenAddress, hexToBytes(slot), hexToBytes(numberToHex(value, { size: 32 })))
  }

  // The ERC-1271 payer: deployed by `deployer` at nonce 0, owned by Alice.
  const wallet = getContractAddress({ from: actors.deployer.address, nonce: 0n })
  const deployed = await send(
    actors.deployer,
    undefined,
    encodeDeployData({ abi: smartWalletAbi, bytecode: smartWalletBytecode, args: [actors.alice.address] }),
  )
  if (deployed.status !== 'success') throw new Error(`SmartWallet deployment failed: ${deployed.revert}`)
  for (const [who, fn, args] of [
    [actors.masterMinter, 'configureMinter', [actors.minter.address, maxUint256]],
    [actors.minter, 'mint', [wallet, initialUnits]],
  ] as const) {
    const outcome = await write(who, fn, args)
    if (outcome.status !== 'success') throw new Error(`harness ${fn} failed: ${outcome.revert}`)
  }

  return {
    vm,
    common,
    chainId,
    token,
    wallet,
    genesis,
    send,
    write,
    read,
    readSlot,
    writeSlots,
    /** Has the wallet's owner make the wallet call the token (`msg.sender` = wallet). */
    walletWrite(functionName: string, args: readonly unknown[]) {
      const inner = encodeFunctionData({ abi: paymentTokenAbi, functionName, args } as never)
      return send(
        actors.alice,
        wallet,
        encodeFunctionData({ abi: smartWalletAbi, functionName: 'execute', args: [token, 0n, inner] }),
      )
    },
    balanceOf: (who: Address) => read<bigint>('balanceOf', [who]),
    authorizationState: (who: Address, nonce: Hex) => read<boolean>('authorizationState', [who, nonce]),
    getTimestamp: () => timestamp,
    setTimestamp(next: bigint) {
      timestamp = next
    },
    /** EIP-712 domain of this token, as a client would build it. */
    domain() {
      return { name: genesisOptions.name, version: '2', chainId, verifyingContract: token } as const
    },
  }
}

/** Decodes `Error(string)` / `Panic(uint256)` revert data; falls back to the EVM error name. */
export function revertReason(data: Hex, fallback: string): string {
  if (data === '0x') return fallback
  try {
    const decoded = decodeErrorResult({ abi: paymentTokenAbi, data })
    if (decoded.errorName === 'Error') return String(decoded.args[0])
    return `${decoded.errorName}(${decoded.args?.map(String).join(', ') ?? ''})`
  } catch {
    return fallback
  }
}

/** The fields both transfer authorizations sign (their type hashes differ by the primary type's name). */
const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const

/** EIP-3009 / EIP-2612 typed-data types, as x402 and Circle's tests sign them. */
export const types = {
  TransferWithAuthorization: authorizationFields,
  ReceiveWithAuthorization: authorizationFields,
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

/** The two signature interfaces of FiatTokenV2_2. */
export type SignatureForm = 'vrs' | 'bytes'

/** Turns a 65-byte signature into the trailing args of the chosen overload. */
export function signatureArgs(signature: Hex, form: SignatureForm): readonly unknown[] {
  if (form === 'bytes') return [signature]
  const { r, s, v } = parseSignature(signature)
  return [Number(v), r, s]
}

/** A deterministic random-looking 32-byte nonce per label. */
export function nonceOf(label: string): Hex {
  return keccak256(stringToHex(label))
}

/** Who pays in a behaviour-table row: Alice's EOA, or her ERC-1271 smart wallet. */
export type PayerKind = 'eoa' | 'erc1271'

/** Every payer kind in every signature interface: the four runs of each behaviour row. */
export const payerCombos = (['eoa', 'erc1271'] as PayerKind[]).flatMap((kind) =>
  (['vrs', 'bytes'] as SignatureForm[]).map((form) => ({ kind, form })),
)

/** The payer address for `kind`; Alice's key signs in both cases (the wallet checks it against its owner). */
export function payerAddress(h: Harness, kind: PayerKind): Address {
  return kind === 'eoa' ? actors.alice.address : h.wallet
}

type PrimaryType = keyof typeof types

/** Signs EIP-712 typed data for the harness token's domain. */
export function signTyped<const P extends PrimaryType>(
  h: Harness,
  signer: PrivateKeyAccount,
  primaryType: P,
  message: Record<string, unknown>,
): Promise<Hex> {
  return signer.signTypedData({ domain: h.domain(), types, primaryType, message } as never)
}

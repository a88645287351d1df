import { type Block, createBlock } from '@ethereumjs/block'
import { type Common, createCommonFromGethGenesis, type GethGenesis } from '@ethereumjs/common'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createAccount, createAddressFromString } from '@ethereumjs/util'
import type { Hex } from 'viem'
import { hexToBytes, isHex, numberToHex, padHex } from 'viem/utils'
import { engineCrypto } from '../common.js'
import { assertKnownEips, patchActive } from '../patches/registry.js'
import { useEipSet } from '../speedups.js'
import { ChainImportError } from '../../errors/chainImport.js'
import { createKzg } from './kzg.js'

/** A chain described by a geth `genesis.json`, ready to execute its first block on. */
export type GethChain = {
  /** Fork schedule and parameters, set to the genesis hardfork. Carries `customCrypto.kzg`. */
  common: Common
  genesisBlock: Block
  /** Holds the genesis alloc, committed; its state root is `genesisBlock.header.stateRoot`. */
  stateManager: MerkleStateManager
  chainId: bigint
  /** `config.terminalTotalDifficulty`, where the chain started as proof of work. */
  ttd?: bigint | undefined
}

/** geth's defaults for a genesis that leaves these out (params.GenesisGasLimit, GenesisDifficulty, InitialBaseFee). */
const defaultGasLimit = 4_712_388n
const defaultDifficulty = 131_072n
const initialBaseFee = 1_000_000_000n
/** Root of an empty trie (no withdrawals) and sha256 of no requests (EIP-7685), as geth puts them in the genesis header. */
const emptyTrieRoot: Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const emptyRequestsHash: Hex = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
const zeroHash: Hex = `0x${'00'.repeat(32)}`

/** Fork switches in a geth config, in activation order: block-numbered first, then timestamped. */
const blockForks = [
  'homesteadBlock',
  'daoForkBlock',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
  'berlinBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeForkBlock',
  'mergeNetsplitBlock',
] as const
const timeForks = [
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'bpo1Time',
  'bpo2Time',
  'bpo3Time',
  'bpo4Time',
  'bpo5Time',
] as const
/** Forks this engine cannot run; a genesis that schedules one is refused rather than silently mis-executed. */
const unsupportedForks = ['amsterdamTime', 'verkleTime'] as const

/**
 * Loads a geth `genesis.json` (already parsed): the fork schedule as a Common, the
 * alloc in a fresh MerkleStateManager, and the genesis block with the header geth
 * would build (default gas limit and difficulty, base fee from London, empty
 * withdrawals root from Shanghai, zero blob gas and beacon root from Cancun, empty
 * requests hash from Prague), so its hash equals geth's.
 *
 * @throws ChainImportError naming the offending field, e.g. `genesis: alloc.0x12….balance: not a quantity`.
 *
 * @example
 * ```ts
 * const chain = await loadGethGenesis(JSON.parse(await readFile('genesis.json', 'utf8')))
 * chain.genesisBlock.hash()
 * ```
 */
export async function loadGethGenesis(json: unknown): Promise<GethChain> {
  const genesis = object(json, 'genesis')
  const config = object(genesis.config, 'config')

  const chainId = quantity(config.chainId, 'config.chainId')
  const forkSwitches: Record<string, number> = {}
  for (const name of [...blockForks, ...timeForks]) {
    if (config[name] === undefined || config[name] === null) continue
    forkSwitches[name] = safeInteger(config[name], `config.${name}`)
  }
  for (const name of unsupportedForks)
    if (config[name] !== undefined && config[name] !== null)
      throw new ChainImportError(`genesis: config.${name}: fork not supported by this engine`)
  if (
    forkSwitches.eip155Block !== undefined &&
    forkSwitches.eip155Block !== forkSwitches.eip158Block
  )
    throw new ChainImportError('genesis: config.eip158Block: must equal config.eip155Block (both are Spurious Dragon)')
  const ttd = optionalQuantity(config.terminalTotalDifficulty, 'config.terminalTotalDifficulty')
  const blobSchedule = readBlobSchedule(config.blobSchedule)

  const timestamp = optionalQuantity(genesis.timestamp, 'timestamp') ?? 0n
  const number = optionalQuantity(genesis.number, 'number') ?? 0n
  if (number !== 0n) throw new ChainImportError('genesis: number: only a genesis at block 0 is supported')
  const gasLimit = optionalQuantity(genesis.gasLimit, 'gasLimit') || defaultGasLimit
  const nonce = optionalQuantity(genesis.nonce, 'nonce') ?? 0n
  if (nonce >= 2n ** 64n) throw new ChainImportError('genesis: nonce: does not fit 8 bytes')
  const extraData = optionalBytes(genesis.extraData, 'extraData') ?? '0x'
  const mixHash = optionalFixedBytes(genesis.mixHash, 32, 'mixHash') ?? zeroHash
  const coinbase = optionalFixedBytes(genesis.coinbase, 20, 'coinbase') ?? `0x${'00'.repeat(20)}`
  const parentHash = optionalFixedBytes(genesis.parentHash, 32, 'parentHash') ?? zeroHash
  const gasUsed = optionalQuantity(genesis.gasUsed, 'gasUsed') ?? 0n
  const baseFee = optionalQuantity(genesis.baseFeePerGas, 'baseFeePerGas')
  const excessBlobGas = optionalQuantity(genesis.excessBlobGas, 'excessBlobGas')
  const blobGasUsed = optionalQuantity(genesis.blobGasUsed, 'blobGasUsed')
  // geth: a missing difficulty is 0 on a chain without ethash, else 131072 unless mixHash is set
  let difficulty = optionalQuantity(genesis.difficulty, 'difficulty')
  if (difficulty === undefined) {
    if (config.ethash === undefined || config.ethash === null) difficulty = 0n
    else if (mixHash === zeroHash) difficulty = defaultDifficulty
    else difficulty = 0n
  }
  const alloc = readAlloc(genesis.alloc)
  const depositContract = optionalFixedBytes(config.depositContractAddress, 20, 'config.depositContractAddress')

  // Hand @ethereumjs/common a normalised copy: it reads fields as it finds them
  // (e.g. `nonce.length`) and would mis-parse decimal strings or JSON numbers.
  const gethGenesis = {
    config: {
      ...forkSwitches,
      chainId: Number.isSafeInteger(Number(chainId)) ? Number(chainId) : (numberToHex(chainId) as unknown as number),
      ...(config.ethash !== undefined ? { ethash: {} } : {}),
      ...(config.clique !== undefined ? { clique: config.clique as object } : {}),
      ...(ttd !== undefined ? { terminalTotalDifficulty: Number(ttd) } : {}),
      ...(config.terminalTotalDifficultyPassed === true ? { terminalTotalDifficultyPassed: true } : {}),
      ...(blobSchedule !== undefined ? { blobSchedule } : {}),
      // where EIP-6110 deposit requests come from (eth_config reports it); ethereumjs defaults to mainnet's
      ...(depositContract !== undefined ? { depositContractAddress: depositContract } : {}),
    },
    nonce: padHex(numberToHex(nonce), { size: 8 }),
    timestamp: numberToHex(timestamp),
    extraData,
    gasLimit: numberToHex(gasLimit),
    difficulty: numberToHex(difficulty),
    mixHash,
    coinbase,
    alloc: {},
  } satisfies GethGenesis

  let common: Common
  try {
    common = createCommonFromGethGenesis(gethGenesis, {
      chain: 'devnet-geth-genesis',
      // the node's crypto (native ecrecover when available), plus KZG for blob txs
      customCrypto: { ...engineCrypto(), kzg: createKzg() },
      // @ethereumjs/common 10.1.3 rewrites a BPO fork's params from blobSchedule as
      // per-block totals, while the BPO code path reads `target`/`max` (blob counts):
      // give them back as hardfork-scoped params, which the param cache merges in.
      params: bpoParams(blobSchedule),
    })
  } catch (error) {
    throw new ChainImportError(`genesis: config: ${(error as Error).message}`)
  }
  common.setHardforkBy({ blockNumber: 0n, timestamp })
  assertKnownEips(common)
  if (patchActive('eip-set')) useEipSet(common)

  const stateManager = new MerkleStateManager({ common })
  for (const account of alloc) {
    const address = createAddressFromString(account.address)
    await stateManager.putAccount(address, createAccount({ balance: account.balance, nonce: account.nonce }))
    if (account.code !== undefined && account.code !== '0x')
      await stateManager.putCode(address, hexToBytes(account.code))
    for (const [key, value] of account.storage)
      await stateManager.putStorage(address, hexToBytes(key), hexToBytes(value))
  }
  await stateManager.flush()
  const stateRoot = await stateManager.getStateRoot()

  const londonAtGenesis = common.isActivatedEIP(1559)
  const shanghaiAtGenesis = common.isActivatedEIP(4895)
  const cancunAtGenesis = common.isActivatedEIP(4844)
  const pragueAtGenesis = common.isActivatedEIP(7685)
  let genesisBlock: Block
  try {
    genesisBlock = createBlock(
      {
        header: {
          parentHash: hexToBytes(parentHash),
          coinbase: hexToBytes(coinbase),
          stateRoot,
          difficulty,
          number: 0n,
          gasLimit,
          gasUsed,
          timestamp,
          extraData: hexToBytes(extraData),
          mixHash: hexToBytes(mixHash),
          nonce: hexToBytes(padHex(numberToHex(nonce), { size: 8 })),
          baseFeePerGas: londonAtGenesis ? (baseFee ?? initialBaseFee) : undefined,
          withdrawalsRoot: shanghaiAtGenesis ? hexToBytes(emptyTrieRoot) : undefined,
          blobGasUsed: cancunAtGenesis ? (blobGasUsed ?? 0n) : undefined,
          excessBlobGas: cancunAtGenesis ? (excessBlobGas ?? 0n) : undefined,
          parentBeaconBlockRoot: cancunAtGenesis ? hexToBytes(zeroHash) : undefined,
          requestsHash: pragueAtGenesis ? hexToBytes(emptyRequestsHash) : undefined,
        },
        withdrawals: shanghaiAtGenesis ? [] : undefined,
      },
      { common, skipConsensusFormatValidation: true },
    )
  } catch (error) {
    throw new ChainImportError(`genesis: header: ${(error as Error).message}`)
  }

  return { common, genesisBlock, stateManager, chainId, ttd }
}

type BlobSchedule = Record<string, { target: number; max: number; baseFeeUpdateFraction: number }>

function readBlobSchedule(value: unknown): BlobSchedule | undefined {
  if (value === undefined || value === null) return undefined
  const schedule: BlobSchedule = {}
  for (const [fork, entry] of Object.entries(object(value, 'config.blobSchedule'))) {
    const field = `config.blobSchedule.${fork}`
    const { target, max, baseFeeUpdateFraction } = object(entry, field)
    schedule[fork] = {
      target: safeInteger(target, `${field}.target`),
      max: safeInteger(max, `${field}.max`),
      baseFeeUpdateFraction: safeInteger(baseFeeUpdateFraction, `${field}.baseFeeUpdateFraction`),
    }
  }
  return schedule
}

/** Hardfork-scoped params for the blob-parameter-only forks (bpo1…bpo5) of a blob schedule. */
function bpoParams(schedule: BlobSchedule | undefined) {
  const params: Record<string, Record<string, number>> = {}
  for (const [fork, { target, max, baseFeeUpdateFraction }] of Object.entries(schedule ?? {}))
    if (/^bpo\d+$/.test(fork)) params[fork] = { target, max, blobGasPriceUpdateFraction: baseFeeUpdateFraction }
  // Common's constructor types params by EIP number; hardfork names are accepted at runtime.
  return params as unknown as Record<number, Record<string, number>>
}

type AllocAccount = {
  address: Hex
  balance: bigint
  nonce: bigint
  code: Hex | undefined
  storage: [Hex, Hex][]
}

function readAlloc(value: unknown): AllocAccount[] {
  const accounts: AllocAccount[] = []
  for (const [key, entry] of Object.entries(object(value, 'alloc'))) {
    const field = `alloc.${key}`
    const address = (key.startsWith('0x') || key.startsWith('0X') ? `0x${key.slice(2)}` : `0x${key}`).toLowerCase()
    if (!/^0x[0-9a-f]{40}$/.test(address)) throw new ChainImportError(`genesis: ${field}: not a 20-byte address`)
    const account = object(entry, field)
    const storage: [Hex, Hex][] = []
    if (account.storage !== undefined && account.storage !== null) {
      for (const [slot, slotValue] of Object.entries(object(account.storage, `${field}.storage`))) {
        // geth accepts short keys and values here and left-pads them (core/types storageJSON)
        const k = shortHash(slot, `${field}.storage key ${slot}`)
        const v = shortHash(slotValue, `${field}.storage.${slot}`)
        if (v !== zeroHash) storage.push([k, v])
      }
    }
    accounts.push({
      address: address as Hex,
      balance: optionalQuantity(account.balance, `${field}.balance`) ?? 0n,
      nonce: optionalQuantity(account.nonce, `${field}.nonce`) ?? 0n,
      code: optionalBytes(account.code, `${field}.code`),
      storage,
    })
  }
  return accounts
}

function fail(field: string, problem: string): never {
  throw new ChainImportError(`genesis: ${field}: ${problem}`)
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'expected an object')
  return value as Record<string, unknown>
}

/** A geth HexOrDecimal: `0x`-hex or decimal string, or a JSON number. */
function quantity(value: unknown, field: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (typeof value === 'string') {
    if (/^0x[0-9a-fA-F]+$/.test(value) || /^[0-9]+$/.test(value)) return BigInt(value)
    if (value === '0x') return 0n
  }
  fail(field, `not a quantity (${JSON.stringify(value)})`)
}

function optionalQuantity(value: unknown, field: string): bigint | undefined {
  return value === undefined || value === null ? undefined : quantity(value, field)
}

function safeInteger(value: unknown, field: string): number {
  const n = quantity(value, field)
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) fail(field, 'too large')
  return Number(n)
}

function optionalBytes(value: unknown, field: string): Hex | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string' && value === '') return '0x'
  if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0)
    fail(field, 'not 0x-prefixed hex bytes')
  return value.toLowerCase() as Hex
}

function optionalFixedBytes(value: unknown, size: number, field: string): Hex | undefined {
  const bytes = optionalBytes(value, field)
  if (bytes !== undefined && bytes.length !== 2 + size * 2) fail(field, `expected ${size} bytes`)
  return bytes
}

function shortHash(value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !/^(0x)?[0-9a-fA-F]{0,64}$/.test(value)) fail(field, 'not a hex word of up to 32 bytes')
  const digits = value.startsWith('0x') ? value.slice(2) : value
  return `0x${digits.toLowerCase().padStart(64, '0')}`
}

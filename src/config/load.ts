import { readFileSync } from 'node:fs'
import { parseEther, parseUnits } from 'viem/utils'
import { DevnetError } from '../errors/base.js'
import {
  type DevnetConfig,
  type MiningConfig,
  presets,
  productionUsdc,
} from './schema.js'

/** A configuration key or value that is not valid. */
export class ConfigError extends DevnetError {
  override name = 'ConfigError'
}

/**
 * What a user may write in `devnet.config.json` or pass to `startDevnet`:
 * every key optional; big numbers as numbers, decimal strings or bigints.
 */
export type ConfigInput = {
  chainId?: number | string | bigint | undefined
  hardfork?: string | undefined
  mnemonic?: string | undefined
  accounts?: number | undefined
  /** Ether per dev account, e.g. 10000 or "10000". */
  balance?: number | string | bigint | undefined
  host?: string | undefined
  port?: number | undefined
  mining?:
    | 'interval'
    | 'auto'
    | 'manual'
    | { type: 'interval' | 'auto' | 'manual'; blockTime?: number; preconfInterval?: number }
    | undefined
  blockTime?: number | undefined
  preconfInterval?: number | undefined
  clock?: 'wall' | 'virtual' | undefined
  genesisTimestamp?: number | string | bigint | undefined
  gasLimit?: number | string | bigint | undefined
  baseFee?: number | string | bigint | undefined
  rpcGasCap?: number | string | bigint | undefined
  token?:
    | {
        address?: string
        name?: string
        symbol?: string
        /** Tokens (not units) per dev account, e.g. "1000000". */
        balance?: number | string
        admin?: string
      }
    | undefined
  cors?: boolean | undefined
  /** Serve the live page on GET / (default true); `false` is the CLI's --no-ui. */
  ui?: boolean | undefined
  bodyLimit?: number | undefined
  batchLimit?: number | undefined
  batchResponseLimit?: number | undefined
  fixturesDir?: string | undefined
  allowFs?: boolean | undefined
  debug?: boolean | undefined
  quiet?: boolean | undefined
  logs?: { maxBlockRange?: number; maxResults?: number } | undefined
  simulate?: { computeStateRoot?: boolean; timestampStep?: number; timestampIncrement?: number } | undefined
  genesis?: string | undefined
  import?: string | undefined
  forkchoice?: string | undefined
  fixture?: string | undefined
  dumpFixture?: string | undefined
  preset?: string | undefined
  /** Fork a live chain: `{ url, blockNumber?, cacheDir?, chainId? }`. */
  fork?:
    | {
        url: string
        blockNumber?: number | string | bigint | 'latest' | undefined
        cacheDir?: string | undefined
        chainId?: number | string | bigint | undefined
        offline?: boolean | undefined
      }
    | undefined
}

/**
 * Every key the loader reads, by object: `devnet.config.schema.json` must
 * list the same (a test holds them together). `$schema` and `//` (a comment)
 * are accepted and ignored.
 */
export const knownKeys = {
  top: [
    'chainId', 'hardfork', 'mnemonic', 'accounts', 'balance', 'host', 'port',
    'mining', 'blockTime', 'preconfInterval', 'clock', 'genesisTimestamp',
    'gasLimit', 'baseFee', 'rpcGasCap', 'token', 'cors', 'ui', 'bodyLimit', 'batchLimit',
    'batchResponseLimit', 'fixturesDir', 'allowFs', 'debug',
    'quiet', 'logs', 'simulate', 'genesis', 'import', 'forkchoice', 'fixture',
    'dumpFixture', 'preset', 'fork', '$schema', '//',
  ],
  mining: ['type', 'blockTime', 'preconfInterval'],
  token: ['address', 'name', 'symbol', 'balance', 'admin'],
  logs: ['maxBlockRange', 'maxResults'],
  // `timestampIncrement` is the key's earlier name, still accepted.
  fork: ['url', 'blockNumber', 'cacheDir', 'chainId', 'offline'],
  simulate: ['computeStateRoot', 'timestampStep', 'timestampIncrement'],
} as const

const topKeys = new Set<string>(knownKeys.top)

const fail = (key: string, why: string): never => {
  throw new ConfigError(`invalid config key "${key}": ${why}`)
}

const toBig = (key: string, value: unknown): bigint => {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(value)) return BigInt(value)
  return fail(key, `expected a non-negative integer, got ${JSON.stringify(value)}`)
}

const toInt = (key: string, value: unknown, min = 0): number => {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min) return value
  return fail(key, `expected an integer >= ${min}, got ${JSON.stringify(value)}`)
}

/**
 * An address in any case, checksummed or not: what viem's `isAddress(value,
 * { strict: false })` accepts. Not viem's: importing it brings its checksum
 * code (keccak-256, whose module computes its round constants on load) into
 * the CLI's front bundle (src/cli/front.ts), which runs this before the
 * socket listens and never needs a checksum.
 */
const isAddress = (value: string) => /^0x[0-9a-fA-F]{40}$/.test(value)

const toStr = (key: string, value: unknown): string => {
  if (typeof value === 'string' && value.length > 0) return value
  return fail(key, `expected a string, got ${JSON.stringify(value)}`)
}

const toBool = (key: string, value: unknown): boolean => {
  if (typeof value === 'boolean') return value
  return fail(key, `expected true or false, got ${JSON.stringify(value)}`)
}

const toDecimal = (key: string, value: unknown, decimals: number): bigint => {
  const text = typeof value === 'number' || typeof value === 'bigint' ? String(value) : value
  if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text))
    return fail(key, `expected a decimal amount, got ${JSON.stringify(value)}`)
  return decimals === 18 ? parseEther(text) : parseUnits(text, decimals)
}

const checkKeys = (prefix: string, object: object, allowed: readonly string[]) => {
  for (const key of Object.keys(object))
    if (!allowed.includes(key)) fail(`${prefix}.${key}`, 'unknown key')
}

/**
 * Applies one layer of configuration on top of `base`, validating every key.
 * Unknown keys are errors, not silently ignored: a typo must not fall back to
 * a default.
 */
export function applyConfig(base: DevnetConfig, input: ConfigInput): DevnetConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ConfigError('invalid config: expected a JSON object')
  for (const key of Object.keys(input)) if (!topKeys.has(key)) fail(key, 'unknown key')
  const c: DevnetConfig = structuredClone(base)
  const i = input as Record<string, unknown>
  const has = (key: string) => i[key] !== undefined

  if (has('preset')) {
    const name = toStr('preset', i.preset)
    const preset = presets[name]
    if (!preset) fail('preset', `unknown preset "${name}" (known: ${Object.keys(presets).join(', ')})`)
    c.preset = name
    c.chainId = preset!.chainId
    c.token = { ...c.token, ...preset!.token }
  }
  if (has('chainId')) c.chainId = toBig('chainId', i.chainId)
  if (has('hardfork')) c.hardfork = toStr('hardfork', i.hardfork)
  if (has('mnemonic')) c.mnemonic = toStr('mnemonic', i.mnemonic)
  if (has('accounts')) c.accounts = toInt('accounts', i.accounts, 1)
  if (has('balance')) c.balance = toDecimal('balance', i.balance, 18)
  if (has('host')) c.host = toStr('host', i.host)
  if (has('port')) {
    c.port = toInt('port', i.port)
    if (c.port > 65535) fail('port', 'expected 0..65535')
  }
  if (has('blockTime')) c.blockTime = toInt('blockTime', i.blockTime, 1)
  if (has('preconfInterval')) c.preconfInterval = toInt('preconfInterval', i.preconfInterval, 1)
  if (has('mining')) {
    const m = i.mining
    const type = typeof m === 'string' ? m : typeof m === 'object' && m !== null ? (m as { type?: unknown }).type : undefined
    if (type !== 'interval' && type !== 'auto' && type !== 'manual')
      fail('mining', `expected "interval", "auto" or "manual", got ${JSON.stringify(m)}`)
    if (typeof m === 'object' && m !== null) {
      checkKeys('mining', m, knownKeys.mining)
      const o = m as { blockTime?: unknown; preconfInterval?: unknown }
      if (o.blockTime !== undefined) c.blockTime = toInt('mining.blockTime', o.blockTime, 1)
      if (o.preconfInterval !== undefined)
        c.preconfInterval = toInt('mining.preconfInterval', o.preconfInterval, 1)
    }
    c.mining = { type } as MiningConfig
  }
  if (c.mining.type === 'interval')
    c.mining = { type: 'interval', blockTime: c.blockTime, preconfInterval: c.preconfInterval }
  if (has('clock')) {
    if (i.clock !== 'wall' && i.clock !== 'virtual')
      fail('clock', `expected "wall" or "virtual", got ${JSON.stringify(i.clock)}`)
    c.clock = i.clock as 'wall' | 'virtual'
  }
  if (has('genesisTimestamp')) c.genesisTimestamp = toBig('genesisTimestamp', i.genesisTimestamp)
  if (has('gasLimit')) c.gasLimit = toBig('gasLimit', i.gasLimit)
  if (has('baseFee')) c.baseFee = toBig('baseFee', i.baseFee)
  if (has('rpcGasCap')) c.rpcGasCap = toBig('rpcGasCap', i.rpcGasCap)
  if (has('token')) {
    const t = i.token
    if (typeof t !== 'object' || t === null) fail('token', 'expected an object')
    const o = t as Record<string, unknown>
    checkKeys('token', o, knownKeys.token)
    if (o.address !== undefined) {
      if (typeof o.address !== 'string' || !isAddress(o.address))
        fail('token.address', `expected an address, got ${JSON.stringify(o.address)}`)
      c.token.address = o.address as `0x${string}`
    }
    if (o.name !== undefined) c.token.name = toStr('token.name', o.name)
    if (o.symbol !== undefined) c.token.symbol = toStr('token.symbol', o.symbol)
    if (o.balance !== undefined) c.token.balance = toDecimal('token.balance', o.balance, 6)
    if (o.admin !== undefined) {
      if (typeof o.admin !== 'string' || !isAddress(o.admin))
        fail('token.admin', `expected an address, got ${JSON.stringify(o.admin)}`)
      c.token.admin = o.admin as `0x${string}`
    }
  }
  if (has('cors')) c.cors = toBool('cors', i.cors)
  if (has('ui')) c.ui = toBool('ui', i.ui)
  if (has('bodyLimit')) c.bodyLimit = toInt('bodyLimit', i.bodyLimit, 1024)
  if (has('batchLimit')) c.batchLimit = toInt('batchLimit', i.batchLimit, 1)
  if (has('batchResponseLimit')) c.batchResponseLimit = toInt('batchResponseLimit', i.batchResponseLimit, 1024)
  if (has('fixturesDir')) c.fixturesDir = toStr('fixturesDir', i.fixturesDir)
  if (has('allowFs')) c.allowFs = toBool('allowFs', i.allowFs)
  if (has('debug')) c.debug = toBool('debug', i.debug)
  if (has('quiet')) c.quiet = toBool('quiet', i.quiet)
  if (has('logs')) {
    const l = i.logs as Record<string, unknown>
    if (typeof l !== 'object' || l === null) fail('logs', 'expected an object')
    checkKeys('logs', l, knownKeys.logs)
    if (l.maxBlockRange !== undefined) c.logs.maxBlockRange = toInt('logs.maxBlockRange', l.maxBlockRange, 1)
    if (l.maxResults !== undefined) c.logs.maxResults = toInt('logs.maxResults', l.maxResults, 1)
  }
  if (has('simulate')) {
    const s = i.simulate as Record<string, unknown>
    if (typeof s !== 'object' || s === null) fail('simulate', 'expected an object')
    checkKeys('simulate', s, knownKeys.simulate)
    if (s.computeStateRoot !== undefined)
      c.simulate.computeStateRoot = toBool('simulate.computeStateRoot', s.computeStateRoot)
    if (s.timestampIncrement !== undefined)
      c.simulate.timestampStep = toInt('simulate.timestampIncrement', s.timestampIncrement, 1)
    if (s.timestampStep !== undefined)
      c.simulate.timestampStep = toInt('simulate.timestampStep', s.timestampStep, 1)
  }
  for (const key of ['genesis', 'import', 'forkchoice', 'fixture', 'dumpFixture'] as const)
    if (has(key)) c[key] = toStr(key, i[key])
  // Key by key over a lower layer's fork (a --fork-block flag keeps the file's cacheDir).
  if (has('fork')) c.fork = toFork(c.fork && typeof i.fork === 'object' && i.fork !== null ? { ...c.fork, ...i.fork } : i.fork)
  return c
}

function toFork(value: unknown): DevnetConfig['fork'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('fork', 'expected an object')
  const o = value as Record<string, unknown>
  checkKeys('fork', o, ['url', 'blockNumber', 'cacheDir', 'chainId', 'offline'])
  const url = toStr('fork.url', o.url)
  if (!/^https?:\/\//.test(url)) fail('fork.url', `expected an http(s) URL, got ${JSON.stringify(url)}`)
  const block = o.blockNumber
  return {
    url,
    blockNumber: block === undefined || block === 'latest' ? 'latest' : toBig('fork.blockNumber', block),
    cacheDir: o.cacheDir === undefined ? undefined : toStr('fork.cacheDir', o.cacheDir),
    chainId: o.chainId === undefined ? undefined : toBig('fork.chainId', o.chainId),
    offline: o.offline === undefined ? false : toBool('fork.offline', o.offline),
  }
}

/** Refuses configurations that would make devnet signatures valid on a real chain. */
export function assertSafe(config: DevnetConfig): void {
  const real = productionUsdc[config.chainId.toString()]
  if (real && real === config.token.address.toLowerCase())
    throw new ConfigError(
      `refusing chain id ${config.chainId} with the token at ${config.token.address}: that is real USDC, and an authorization signed against this devnet would be valid on the real chain`,
    )
}

/** Reads and parses a JSON config file, naming the file in any error. */
export function readConfigFile(path: string): ConfigInput {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text) as ConfigInput
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

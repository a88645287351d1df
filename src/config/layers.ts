import { type ConfigInput, applyConfig, assertSafe } from './load.js'
import { type DevnetConfig, defaultConfig, presets } from './schema.js'

/**
 * One source of settings. `source` names it in warnings (a file path,
 * "flags", "options"); `keyName` says how a user wrote a key there (a flag
 * for the CLI layer); without it a key is named `<key> <value> in <source>`.
 */
export type ConfigLayer = {
  input: ConfigInput | undefined
  source: string
  keyName?: ((path: string) => string) | undefined
}

export type ResolvedConfig = { config: DevnetConfig; warnings: string[] }

/** The value a layer gives at a dotted key path, or undefined. */
const valueAt = (input: ConfigInput, path: string): unknown =>
  path.split('.').reduce<unknown>((o, key) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined), input)

/** The keys a preset sets, with its values. */
const presetSettings = (name: string): [string, unknown][] => {
  const preset = presets[name]!
  return [['chainId', preset.chainId], ...Object.entries(preset.token).map(([k, v]): [string, unknown] => [`token.${k}`, v])]
}

/** A value as a user would write it, so two spellings of one setting compare equal. */
const normal = (path: string, value: unknown) =>
  path === 'chainId' ? BigInt(value as string).toString() : path === 'token.address' ? String(value).toLowerCase() : String(value)
const shown = (path: string, value: unknown) =>
  path === 'chainId' ? BigInt(value as string).toString() : path === 'token.address' ? String(value) : JSON.stringify(value)

/**
 * Merges defaults < layers (lowest first: the config file, then CLI flags,
 * then programmatic options) into one frozen config. Nested keys merge key by
 * key, so `--block-time` beats `mining.blockTime` from a file.
 *
 * - A preset is a choice made at its layer's level: it beats every layer
 *   below it, and the keys written beside it in its own layer beat it. Every
 *   contradicted key (a file's `chainId`, `--chain-id` beside `--preset`) is
 *   reported in one warning line per preset, never merged silently.
 * - Importing a chain (`genesis`/`import`) switches mining to manual unless
 *   the layer that asks for the import, or one above it, sets `mining`: a
 *   config file written for the dev chain does not decide how an import mines.
 * - With the wall clock and no `genesisTimestamp` given, the genesis block
 *   carries the start time, as on Anvil and Hardhat, so `latest` is never far
 *   behind the machine's time; the virtual clock keeps the fixed default
 *   (deterministic hashes).
 */
export function resolveLayers(layers: ConfigLayer[], options: { now?: () => number } = {}): ResolvedConfig {
  let config = defaultConfig
  const warnings: string[] = []
  /** Who last set each key a preset can set: the value and how to name the setting. */
  const setBy = new Map<string, { value: unknown; name: (shown: string) => string }>()
  for (const layer of layers) {
    const input = layer.input
    if (!input) continue
    config = applyConfig(config, input)
    const { keyName } = layer
    const setting = (path: string) => (shown: string) =>
      keyName ? `${keyName(path)} ${shown}` : `${path} ${shown} in ${layer.source}`
    const preset = input.preset === undefined ? undefined : String(input.preset)
    if (preset !== undefined) {
      const contradicted: string[] = []
      for (const [path, value] of presetSettings(preset)) {
        const below = setBy.get(path)
        if (below && normal(path, below.value) !== normal(path, value))
          contradicted.push(`${below.name(shown(path, below.value))} (${shown(path, value)} used)`)
        const beside = valueAt(input, path)
        if (beside !== undefined && normal(path, beside) !== normal(path, value))
          contradicted.push(`${setting(path)(shown(path, beside))} (${shown(path, beside)} used)`)
        setBy.set(path, { value, name: (v) => `preset ${preset}'s ${path} ${v}` })
      }
      if (contradicted.length > 0) warnings.push(`${setting('preset')(preset)} contradicts ${contradicted.join(', ')}`)
    }
    for (const path of ['chainId', 'token.address', 'token.name', 'token.symbol']) {
      const value = valueAt(input, path)
      if (value !== undefined) setBy.set(path, { value, name: setting(path) })
    }
  }

  const sets = (key: keyof ConfigInput) => layers.map((l) => l.input?.[key] !== undefined)
  const importAt = Math.max(sets('genesis').lastIndexOf(true), sets('import').lastIndexOf(true))
  if (config.genesis && !sets('mining').some((set, i) => set && i >= importAt))
    config = applyConfig(config, { mining: 'manual' })
  if (config.clock === 'wall' && !config.genesis && !sets('genesisTimestamp').includes(true))
    config = { ...config, genesisTimestamp: BigInt(Math.floor((options.now ?? Date.now)() / 1000)) }
  assertSafe(config)
  return { config: Object.freeze(config), warnings }
}

/**
 * Merges defaults < each layer in order (later wins) into one frozen config;
 * see {@link resolveLayers} for presets, imports and the wall clock's genesis.
 */
export function loadConfig(...layers: (ConfigInput | undefined)[]): DevnetConfig {
  return resolveLayers(layers.map((input, i) => ({ input, source: `layer ${i}` }))).config
}

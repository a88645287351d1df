import { type ConfigLayer, resolveLayers } from './layers.js'
import { type ConfigInput, readConfigFile } from './load.js'
import type { DevnetConfig } from './schema.js'

/** Options of createDevnet / startDevnet: any devnet.config.json key, plus a config file to read first. */
export type DevnetOptions = ConfigInput & {
  /** A config file layered under these options. */
  configFile?: string | undefined
}

/**
 * Where settings come from besides the options, lowest first: the caller's
 * defaults (under the config file), the config file, the CLI's flags (between
 * the file and the options). What the CLI adds to the options.
 */
export type ConfigSources = {
  /** Defaults of the caller, under the config file: startDevnet's port 0. */
  base?: ConfigInput | undefined
  /** The CLI's flags, above the config file and below the options. */
  flags?: ConfigLayer | undefined
  /** Receives each one-line warning (a preset contradicting a key); default: printed to stderr. */
  onWarning?: ((line: string) => void) | undefined
}

/**
 * Resolves options into a config: defaults < config file < flags < options,
 * key by key (src/config/layers.ts). An import switches to manual mining
 * unless told otherwise.
 */
export async function resolveConfig(options: DevnetOptions = {}, sources: ConfigSources = {}): Promise<DevnetConfig> {
  const { configFile, ...rest } = options
  const layers: ConfigLayer[] = [
    { input: sources.base, source: 'defaults' },
    { input: configFile ? readConfigFile(configFile) : undefined, source: configFile ?? '' },
    ...(sources.flags ? [sources.flags] : []),
    { input: rest, source: 'options', keyName: (path) => `options.${path}` },
  ]
  const { config, warnings } = resolveLayers(layers)
  for (const line of warnings) (sources.onWarning ?? ((l: string) => console.error(`devnet: warning: ${l}`)))(line)
  return config
}

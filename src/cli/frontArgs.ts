import { type StartValues, startFlags } from './start.js'

/**
 * The arguments of a plain `devnet start` read without node:util's
 * parseArgs, for the CLI's front (src/cli/front.ts): what parseStartArgs
 * returns for them, or undefined for anything this does not read, which
 * the front then gives to parseStartArgs.
 *
 * Read here: the `start` command (once, anywhere), `--flag` for a boolean
 * flag of startFlags, and `--flag value` or `--flag=value` for a string one,
 * a later one overriding an earlier one, as parseArgs does. Left to
 * parseArgs: short flags, `--`, an unknown flag, a boolean with a value, a
 * missing value, or one that starts with a dash (parseArgs' strict mode
 * refuses most of these with its own messages).
 *
 * Why: parseArgs' first call loads and compiles its part of node:util,
 * ~1.5-2 ms of CPU of a cold start before the socket listens, for flags
 * that are a loop to read (test/cli/frontArgs.test.ts holds the two to the
 * same answers).
 */
export function readFrontArgs(argv: readonly string[]): { values: StartValues; positionals: string[] } | undefined {
  const values: Record<string, string | boolean> = {}
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') || arg !== 'start' || positionals.length > 0) return undefined
      positionals.push(arg)
      continue
    }
    const equals = arg.indexOf('=', 3)
    const name = arg.slice(2, equals < 0 ? undefined : equals)
    if (!Object.hasOwn(startFlags, name)) return undefined
    const { type } = startFlags[name as keyof typeof startFlags]
    if (type === 'boolean') {
      if (equals >= 0) return undefined
      values[name] = true
      continue
    }
    const value = equals >= 0 ? arg.slice(equals + 1) : argv[++i]
    if (value === undefined || (equals < 0 && value.startsWith('-'))) return undefined
    values[name] = value
  }
  return { values: values as StartValues, positionals }
}

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseStartArgs, startInputs } from '../../src/cli/start.js'
import type { DevnetConfig } from '../../src/config/schema.js'
import { resolveConfig } from '../../src/index.js'
import { tempDir } from '../tempDir.js'

const dir = tempDir('devnet-precedence-')
let files = 0

/** Resolves `devnet start ARGV` with a config file holding `file`, as the CLI does; collects the warnings. */
async function start(argv: string[], file: object) {
  const path = join(dir, `config-${files++}.json`)
  writeFileSync(path, JSON.stringify(file))
  const warnings: string[] = []
  const { values } = parseStartArgs(['start', '--config', path, ...argv])
  const { options, sources } = startInputs(values, { onWarning: (line) => warnings.push(line) })
  const config = await resolveConfig(options, sources)
  return { config, warnings }
}

/** A row's title: the flags, then the file, as a user would type and write them. */
const title = (row: { flag: string[]; file: object }) => `${row.flag.join(' ') || '(no flag)'} × ${JSON.stringify(row.file)}`
const titled = <T extends { flag: string[]; file: object }>(rows: T[]) => rows.map((row) => ({ ...row, title: title(row) }))

const baseSepoliaUsdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const interval = { type: 'interval', blockTime: 2000, preconfInterval: 200 }

/** Each flag against a file setting the same key (in every spelling the file accepts): the flag wins. */
const flagTable: { flag: string[]; file: object; read: (c: DevnetConfig) => unknown; want: unknown }[] = [
  { flag: ['--port', '9001'], file: { port: 8000 }, read: (c) => c.port, want: 9001 },
  { flag: ['--host', '0.0.0.0'], file: { host: '127.0.0.2' }, read: (c) => c.host, want: '0.0.0.0' },
  { flag: ['--chain-id', '5'], file: { chainId: 7 }, read: (c) => c.chainId, want: 5n },
  { flag: ['--block-time', '1000'], file: { blockTime: 3000 }, read: (c) => c.mining, want: { ...interval, blockTime: 1000 } },
  { flag: ['--block-time', '1000'], file: { mining: interval }, read: (c) => c.mining, want: { ...interval, blockTime: 1000 } },
  { flag: ['--preconf-interval', '100'], file: { preconfInterval: 300 }, read: (c) => c.mining, want: { ...interval, preconfInterval: 100 } },
  { flag: ['--preconf-interval', '100'], file: { mining: interval }, read: (c) => c.mining, want: { ...interval, preconfInterval: 100 } },
  { flag: ['--mining', 'manual'], file: { mining: interval }, read: (c) => c.mining.type, want: 'manual' },
  { flag: ['--mining', 'auto'], file: { mining: 'manual' }, read: (c) => c.mining.type, want: 'auto' },
  // A mode given as a word keeps the file's timings.
  { flag: ['--mining', 'interval'], file: { mining: { type: 'manual', blockTime: 3000 } }, read: (c) => c.mining, want: { ...interval, blockTime: 3000 } },
  { flag: ['--clock', 'virtual'], file: { clock: 'wall' }, read: (c) => c.clock, want: 'virtual' },
  { flag: ['--preset', 'base-sepolia'], file: { chainId: 31337 }, read: (c) => c.chainId, want: 84532n },
  { flag: ['--preset', 'base-sepolia'], file: { token: { address: '0x3009300930093009300930093009300930093009' } }, read: (c) => c.token.address, want: baseSepoliaUsdc },
  { flag: ['--genesis', 'a.json'], file: { genesis: 'b.json' }, read: (c) => c.genesis, want: 'a.json' },
  { flag: ['--import', 'a.rlp'], file: { import: 'b.rlp' }, read: (c) => c.import, want: 'a.rlp' },
  { flag: ['--forkchoice', 'a.json'], file: { forkchoice: 'b.json' }, read: (c) => c.forkchoice, want: 'a.json' },
  { flag: ['--fixture', 'a.json'], file: { fixture: 'b.json' }, read: (c) => c.fixture, want: 'a.json' },
  { flag: ['--dump-fixture', 'a.json'], file: { dumpFixture: 'b.json' }, read: (c) => c.dumpFixture, want: 'a.json' },
  { flag: ['--debug'], file: { debug: false }, read: (c) => c.debug, want: true },
  { flag: ['--quiet'], file: { quiet: false }, read: (c) => c.quiet, want: true },
]

describe('devnet start: flags over devnet.config.json', () => {
  test.each(titled(flagTable))('$title', async ({ flag, file, read, want }) => {
    const { config } = await start(flag, file)
    expect(read(config)).toEqual(want)
  })

  test('the file still beats the defaults, and options beat flags', async () => {
    const { config } = await start([], { port: 8000, mining: { type: 'interval', blockTime: 3000 } })
    expect([config.port, config.blockTime, config.mining]).toEqual([8000, 3000, { ...interval, blockTime: 3000 }])
    const { options, sources } = startInputs(parseStartArgs(['--port', '9001', '--block-time', '700']).values)
    const programmatic = await resolveConfig({ ...options, port: 1234, blockTime: 500 }, sources)
    expect([programmatic.port, programmatic.blockTime]).toEqual([1234, 500])
  })
})

describe('options over the config file, nested keys merged key by key', () => {
  test('token, logs and simulate: a key the options set wins, the file keeps the rest', async () => {
    const path = join(dir, `config-${files++}.json`)
    writeFileSync(path, JSON.stringify({ token: { name: 'A', symbol: 'B' }, logs: { maxResults: 5 }, simulate: { timestampStep: 3 } }))
    const config = await resolveConfig({ configFile: path, token: { name: 'C' }, logs: { maxBlockRange: 10 }, simulate: { computeStateRoot: true } })
    expect([config.token.name, config.token.symbol, config.logs, config.simulate]).toEqual([
      'C', 'B', { maxBlockRange: 10, maxResults: 5 }, { computeStateRoot: true, timestampStep: 3 },
    ])
  })
})

/** A preset is a flag-level choice: it beats the file; a contradicted file key is reported in one line. */
const presetTable: { flag: string[]; file: object; read: (c: DevnetConfig) => unknown; want: unknown; warns: RegExp | null }[] = [
  { flag: ['--preset', 'base-sepolia'], file: { chainId: 31337 }, read: (c) => c.chainId, want: 84532n, warns: /--preset base-sepolia.*chainId 31337/ },
  { flag: ['--preset', 'base-sepolia'], file: { chainId: 84532 }, read: (c) => c.chainId, want: 84532n, warns: null },
  { flag: ['--preset', 'base-sepolia'], file: { token: { name: 'Test Dollar', symbol: 'TD' } }, read: (c) => [c.token.name, c.token.symbol], want: ['USDC', 'USDC'], warns: /token\.name "Test Dollar".*token\.symbol "TD"/ },
  { flag: ['--preset', 'base-sepolia'], file: { token: { address: '0x3009300930093009300930093009300930093009' } }, read: (c) => c.token.address, want: baseSepoliaUsdc, warns: /token\.address 0x3009/ },
  // Keys the preset does not set merge quietly.
  { flag: ['--preset', 'base-sepolia'], file: { token: { balance: '5' }, accounts: 3 }, read: (c) => [c.chainId, c.token.balance, c.accounts], want: [84532n, 5_000_000n, 3], warns: null },
  { flag: ['--preset', 'base-sepolia'], file: { preset: 'base-sepolia' }, read: (c) => c.chainId, want: 84532n, warns: null },
  // A flag beats a preset from the file, as it beats any file key.
  { flag: ['--chain-id', '5'], file: { preset: 'base-sepolia' }, read: (c) => [c.chainId, c.token.address], want: [5n, baseSepoliaUsdc], warns: null },
  // Two flags that disagree: the explicit key wins over the preset's, and says so.
  { flag: ['--preset', 'base-sepolia', '--chain-id', '5'], file: {}, read: (c) => c.chainId, want: 5n, warns: /--preset base-sepolia contradicts --chain-id 5 \(5 used\)/ },
]

describe('devnet start: presets over devnet.config.json', () => {
  test.each(titled(presetTable))('$title', async ({ flag, file, read, want, warns }) => {
    const { config, warnings } = await start(flag, file)
    expect(read(config)).toEqual(want)
    if (warns === null) expect(warnings).toEqual([])
    else {
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(warns)
      expect(warnings[0]).not.toContain('\n')
    }
  })
})

describe('an imported chain mines manually unless mining is asked', () => {
  test.each([
    { flag: ['--genesis', 'g.json', '--import', 'c.rlp'], file: { mining: interval }, want: 'manual' },
    { flag: ['--genesis', 'g.json'], file: { blockTime: 1000 }, want: 'manual' },
    { flag: ['--genesis', 'g.json', '--mining', 'interval'], file: {}, want: 'interval' },
    { flag: [], file: { genesis: 'g.json', mining: 'auto' }, want: 'auto' },
    { flag: [], file: { genesis: 'g.json' }, want: 'manual' },
  ].map((row) => ({ ...row, title: `${title(row)} → ${row.want}` })))('$title', async ({ flag, file, want }) => {
    expect((await start(flag, file)).config.mining.type).toBe(want)
  })
})

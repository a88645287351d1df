import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createBlockFromRLP } from '../evm/engine.js'
import { ConfigError, type ConfigInput } from '../config/load.js'
import { createDevCommon } from '../evm/engine.js'
import { createDevnet } from '../index.js'
import { readFixtureFile } from '../node/fixture/file.js'
import { type LoadableFixture, forEachEntry, fromHex } from '../node/fixture/format.js'
import { flagName, usageLine } from './start.js'

/**
 * `devnet fixture save|load|inspect`:
 *
 * - save FILE: builds a chain from the config file and flags (or from
 *   --fixture), seals --blocks N empty blocks (default none), and writes it
 *   to FILE. Mining is manual and the clock virtual, so the same flags give
 *   the same bytes.
 * - inspect FILE: reads the file without building a chain and prints what it
 *   holds (checks the format only).
 * - load FILE: loads the file into an in-memory devnet exactly as
 *   `devnet start --fixture FILE` would (block hashes, parent links,
 *   receipts, state roots present, pre-confirmed transactions re-run), then
 *   runs the full state check a start skips (every node and code rehashed
 *   against its key, every block's state walked for completeness), prints
 *   the same summary and exits 0, or prints the problem and exits 1.
 */
export const fixtureHelp = `Usage: devnet fixture <command> FILE [options]

Commands:
  save FILE      build a chain from the config/flags and write it to FILE
  inspect FILE   print what FILE holds (format check only, fast)
  load FILE      load FILE as 'devnet start --fixture FILE' would, then check
                 every state node against its hash and every block's state
                 for completeness; print what it holds, or exit 1 with the
                 problem

Options of save:
  --config FILE     config file (default ./devnet.config.json when present)
  --chain-id N      chain id
  --preset NAME     base-sepolia
  --fixture FILE    start from this fixture instead of the dev genesis
  --blocks N        seal N empty blocks before writing (default 0)
`

const flags = {
  config: { type: 'string' },
  'chain-id': { type: 'string' },
  preset: { type: 'string' },
  fixture: { type: 'string' },
  blocks: { type: 'string' },
  help: { type: 'boolean' },
} as const

/** What a fixture holds, as lines of text. */
export function describeFixture(fixture: LoadableFixture, bytes: number): string {
  const common = createDevCommon(BigInt(fixture.config.chainId), fixture.config.hardfork)
  const rlpOf = (rlp: string | Uint8Array) => (typeof rlp === 'string' ? fromHex(rlp) : rlp)
  const last = fixture.blocks[fixture.blocks.length - 1]
  // A fork's fixture without a local block: its head is the upstream's pin block, recorded as JSON.
  const pinHeader = fixture.fork?.reads.reads[`eth_getBlockByNumber:${JSON.stringify([fixture.fork.blockNumber, false])}`] as { timestamp?: string } | undefined
  const timestamp = last ? createBlockFromRLP(rlpOf(last.rlp), { common, setHardfork: false }).header.timestamp : BigInt(pinHeader?.timestamp ?? 0)
  const transactions = fixture.blocks.reduce((n, b) => n + b.receipts.length, 0)
  const size = (values: (string | Uint8Array)[]) => values.reduce((n, v) => n + (typeof v === 'string' ? (v.length - 2) / 2 : v.length), 0)
  const values = (entries: LoadableFixture['state']['nodes']) => {
    const out: (string | Uint8Array)[] = []
    forEachEntry(entries, (_, value) => out.push(typeof value === 'string' ? `0x${value}` : value))
    return out
  }
  const nodes = values(fixture.state.nodes)
  const code = values(fixture.state.code)
  const mb = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(1)} kB`)
  return [
    `version:       ${fixture.version}`,
    `chain id:      ${BigInt(fixture.config.chainId)} (${fixture.config.hardfork})`,
    ...(fixture.fork
      ? [
          `fork of:       ${fixture.fork.upstream} (chain ${BigInt(fixture.fork.chainId)}) at block ${BigInt(fixture.fork.blockNumber)} ${fixture.fork.blockHash}`,
          `fork reads:    ${Object.keys(fixture.fork.reads.accounts).length} accounts, ${Object.values(fixture.fork.reads.storage).reduce((n, s) => n + Object.keys(s).length, 0)} storage words, ${Object.keys(fixture.fork.reads.reads).length} other reads`,
          `blocks:        ${fixture.blocks.length} local (above the fork block, to ${BigInt(fixture.head.number)})`,
        ]
      : [`blocks:        ${fixture.blocks.length} (genesis to ${BigInt(fixture.head.number)})`]),
    `head:          ${BigInt(fixture.head.number)} ${fixture.head.hash} at ${timestamp}`,
    ...(fixture.cheatedRoots
      ? [`cheats:        below the head at block${fixture.cheatedRoots.length > 1 ? 's' : ''} ${fixture.cheatedRoots.map((c) => BigInt(c.number)).join(', ')} (read at their cheated state)`]
      : []),
    `accounts:      ${fixture.config.accounts} dev accounts, token ${fixture.config.token.symbol} at ${fixture.config.token.address}`,
    `transactions:  ${transactions} sealed, ${fixture.pending.transactions.length} pre-confirmed, ${fixture.pool.length} in the pool`,
    `clock:         ${fixture.clock.kind} ${fixture.clock.value}`,
    `state:         ${nodes.length} trie nodes (${mb(size(nodes))}), ${code.length} contract codes (${mb(size(code))})`,
    `size:          ${mb(bytes)} (blocks ${mb(size(fixture.blocks.map((b) => b.rlp)))})`,
  ].join('\n')
}

export async function runFixtureCommand(argv: string[], fail: (message: string) => never) {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof flags; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    return fail(usageLine(error))
  }
  const { values, positionals } = parsed
  if (values.help || positionals.length === 0) {
    process.stdout.write(fixtureHelp)
    return
  }
  const [command, file, ...rest] = positionals
  if (!file || rest.length > 0) return fail(`usage: devnet fixture ${command ?? '<command>'} FILE (try: devnet fixture --help)`)
  if (command !== 'save' && (values.blocks ?? values.config ?? values['chain-id'] ?? values.preset ?? values.fixture) !== undefined)
    return fail(`--config, --chain-id, --preset, --fixture and --blocks apply to 'devnet fixture save' only`)

  try {
    if (command === 'inspect') {
      const { fixture, bytes } = await readFixtureFile(file)
      console.log(describeFixture(fixture, bytes))
    } else if (command === 'load') {
      const { fixture, bytes } = await readFixtureFile(file)
      const devnet = await createDevnet({ fixture: file, mining: 'manual', clock: 'virtual', quiet: true })
      try {
        // The check a start skips for speed: every node against its hash, every state complete.
        devnet.node.verifyFixtureState(fixture)
      } finally {
        await devnet.close()
      }
      console.log(describeFixture(fixture, bytes))
      console.log('loads:         yes (hashes, parent links, receipts, every state node and every state checked; pre-confirmed transactions re-run)')
    } else if (command === 'save') {
      // The same layers as devnet start: defaults < config file < these flags; the chain is built manually on the virtual clock.
      const configFile = values.config ?? (existsSync('devnet.config.json') ? 'devnet.config.json' : undefined)
      const flags: ConfigInput = {}
      if (values['chain-id'] !== undefined) flags.chainId = values['chain-id']
      if (values.preset !== undefined) flags.preset = values.preset
      if (values.fixture !== undefined) flags.fixture = values.fixture
      const blocks = values.blocks === undefined ? 0 : Number(values.blocks)
      if (!Number.isSafeInteger(blocks) || blocks < 0) return fail(`invalid value for --blocks: ${JSON.stringify(values.blocks)}`)
      const devnet = await createDevnet(
        { configFile, mining: 'manual', clock: 'virtual', quiet: true },
        { flags: { input: flags, source: 'flags', keyName: flagName }, onWarning: (line) => console.error(`devnet: warning: ${line}`) },
      )
      for (let i = 0; i < blocks; i++) await devnet.seal()
      // node.close(), not devnet.close(): a dumpFixture in the config file must not write a second file.
      await devnet.node.close()
      const { bytes } = await devnet.node.dumpFixtureToFile(file)
      console.log(`wrote ${file}`)
      console.log(describeFixture((await readFixtureFile(file)).fixture, bytes))
    } else return fail(`unknown fixture command "${command}" (try: devnet fixture --help)`)
  } catch (error) {
    if (error instanceof ConfigError) return fail(error.shortMessage)
    const e = error as Error & { shortMessage?: string }
    console.error(`devnet: ${file}: ${e.shortMessage ?? e.message}`)
    process.exit(1)
  }
}


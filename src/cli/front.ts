import { writeSync } from 'node:fs'
import { resolveConfig } from '../config/resolve.js'
import { type Listening, listenFirst } from '../server/listenFirst.js'
import { parseStartArgs, startInputs } from './start.js'
import type { runCli } from './run.js'

/**
 * The CLI's first script (dist/bundle/front.cjs, which bin/devnet.js runs
 * before the CLI bundle): a plain `devnet start` opens its socket here, with
 * only the flag parsing, the config and the HTTP transport loaded, then the
 * rest of the CLI (dist/bundle/cli.cjs: the engine, the node, every method,
 * ~45 times this script's size) is read, compiled from its V8 code cache
 * and run behind the listening socket (`compileCli`, then runCli).
 *
 * Why: the first answer of a start (the eth_chainId a client polls a
 * starting node with, src/rpc/startupDispatcher.ts) comes once the socket
 * listens, and reading the CLI bundle and its code cache (1.6 MB then) before that
 * was a quarter of the time to it.
 *
 * A fork starts here too: its first upstream reads (chain id and fork block,
 * src/node/fork/firstReads.ts: node built-ins and plain data only) are sent
 * before listening, and the CLI's upstream client takes them over.
 *
 * Anything else (another command, --help, a bad flag or config, a port in
 * use, x402, a fixture) opens nothing here: the whole CLI starts from the arguments
 * alone, as it would without this script, and prints what it prints.
 */
export async function runFront(
  argv: string[],
  compileCli: (beforeCompile?: () => Promise<void>) => Promise<() => { runCli: typeof runCli }>,
): Promise<void> {
  const listening = await listenEarly(argv)
  // Compiling the CLI, evaluating it and starting the node each keep the main thread for several milliseconds: a
  // request that reached the socket meanwhile is answered between them, after a few turns of the event loop, and
  // each waits for a fork's early reads on their way (and a client's next one, src/rpc/startupDispatcher.ts's idle).
  let budget = maxHoldMs
  const between = listening
    ? async () => {
        await turns()
        const held = performance.now()
        await listening.idle(budget)
        budget -= performance.now() - held
      }
    : undefined
  if (between) await between()
  // Read off the main thread (bin/codeCache.js): a request that comes meanwhile is answered before the compile.
  const evaluate = await compileCli(between)
  if (between) await between()
  const cli = evaluate()
  if (between) await between()
  cli.runCli(argv, listening)
}

/**
 * The longest the steps of loading the CLI wait for early answers, all told:
 * a client that keeps reading accounts is answered first, for up to this
 * long, and then the node is built whatever comes (a request the node must
 * answer ends the wait at once).
 */
const maxHoldMs = 250

/** A few turns of the event loop: a connection accepted, its request read and answered. */
async function turns() {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
}

/** A plain `devnet start` with its config resolved and its socket listening; undefined for anything else. */
async function listenEarly(argv: string[]): Promise<Listening | undefined> {
  if (argv[0] === 'fixture') return undefined
  let parsed: ReturnType<typeof parseStartArgs>
  try {
    parsed = parseStartArgs(argv)
  } catch {
    return undefined
  }
  const { values, positionals } = parsed
  if (values.help || values.version || positionals.length > 1 || (positionals[0] ?? 'start') !== 'start') return undefined
  if (values['x402-facilitator'] || values['x402-port'] !== undefined || values['x402-wait-for'] !== undefined) return undefined
  // Printed once listening: on a failure the whole CLI resolves the config again and prints them itself.
  const warnings: string[] = []
  let listening: Listening
  try {
    const { options, sources } = startInputs(values, { onWarning: (line) => warnings.push(line) })
    const config = await resolveConfig(options, { base: { port: 0 }, ...sources })
    // A fork's first reads go out here (listenFirst) and travel while the rest of the CLI loads.
    listening = await listenFirst(config)
  } catch {
    // The whole CLI starts over from the arguments (with its own first reads; listenFirst closed these).
    return undefined
  }
  // In the whole CLI's order: the fork's line comes before resolving the config, which warns.
  const lines = warnings.map((line) => `devnet: warning: ${line}`)
  if (values['fork-url'] !== undefined) lines.unshift('devnet: forking, reading the upstream chain...')
  printEarly(lines)
  return listening
}

/**
 * Writes `lines` to stderr as console.error would, with one fs.writeSync:
 * the first console.error of a process makes process.stderr and the
 * console's formatter, ~7 ms of CPU on the bench machine, which would come
 * between the socket listening and the first answer. (On Linux, writes to
 * stderr are synchronous whatever it is, so the order with the CLI's later
 * lines is kept.) What stderr does not take at once goes through
 * process.stderr.
 */
function printEarly(lines: string[]) {
  if (lines.length === 0) return
  const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''))
  let written = 0
  try {
    written = writeSync(2, bytes)
  } catch {
    // A stderr that cannot take it now (EAGAIN on a non-blocking pipe): process.stderr waits for it.
  }
  if (written < bytes.length) process.stderr.write(bytes.subarray(written))
}

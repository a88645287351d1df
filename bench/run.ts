/**
 * `npm run bench`: devnet's figures beside its peers' (Anvil, Hardhat, ...).
 *
 * With the shared peer harness present (../shared/bench/peers.mjs from the
 * project root) it builds dist/ when it is missing or older than src/, spawns
 * `node bin/devnet.js start --port {port} --mining auto` under the harness
 * (same workload, same HTTP client as every peer), and prints our figures in
 * a table beside the peer figures stored in ../shared/bench/results/SUMMARY.md
 * and beside any peer run again now with `--peers anvil,hardhat` (same
 * machine, same load: the fair comparison on a shared 2-core box).
 *
 *   npm run bench                         # full harness run (~1-2 min for devnet)
 *   npm run bench -- --quick              # harness smoke run (1 s loops, 50 txs)
 *   npm run bench -- --only b,c,d         # harness steps (a cold .. i rss, see its README)
 *   npm run bench -- --peers anvil        # also run Anvil now
 *   npm run bench -- --in-process         # the in-process figures below, no harness
 *
 * Without ../shared (or without the harness' $PEERS_DIR: run
 * `bash ../shared/bench/setup.sh` once) it falls back to in-process figures:
 * reads at 1 and 32 in flight, token balanceOf calls, signed ETH transfers in
 * auto mode, cold start, RSS. It asserts nothing.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeFunctionData, parseAbi, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startDevnet } from '../src/index.js'
import { post } from './peerProcess.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const harnessDir = join(root, '..', 'shared', 'bench')
const peersDir = process.env.PEERS_DIR ?? join(process.env.TMPDIR ?? tmpdir(), 'devnet-peers')

async function load(url: string, body: string, inFlight: number, seconds: number) {
  const u = new URL(url)
  const latencies: number[] = []
  const end = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now()
      await post(u, body)
      latencies.push(performance.now() - t)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: inFlight }, worker))
  const elapsed = (performance.now() - start) / 1000
  latencies.sort((a, b) => a - b)
  return { rps: Math.round(latencies.length / elapsed), p50: latencies[Math.floor(latencies.length / 2)]!.toFixed(2) }
}

const rpc = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

async function inProcess(quick: boolean) {
  const seconds = quick ? 1 : 5
  const figures: Record<string, unknown> = {}

  // Cold start: spawn the CLI, time to the first eth_chainId answer.
  if (existsSync(new URL('../dist/bundle/cli.cjs', import.meta.url))) {
    const t = performance.now()
    const child = spawn(process.execPath, [new URL('../bin/devnet.js', import.meta.url).pathname, 'start', '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] })
    const url = await new Promise<string>((resolve) => {
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        const m = /Listening on (\S+)/.exec(out)
        if (m) resolve(m[1]!)
      })
    })
    await post(new URL(url), rpc('eth_chainId', []))
    figures.coldStartMs = Math.round(performance.now() - t)
    child.kill('SIGTERM')
  }

  const devnet = await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
  const a0 = devnet.accounts[0]!.address
  await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 4, 0.5)
  figures.getBalanceLatest1 = await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 1, seconds)
  figures.getBalanceLatest32 = await load(devnet.url, rpc('eth_getBalance', [a0, 'latest']), 32, seconds)
  figures.getBalancePending32 = await load(devnet.url, rpc('eth_getBalance', [a0, 'pending']), 32, seconds)
  const data = encodeFunctionData({ abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [a0] })
  figures.balanceOfCall32 = await load(devnet.url, rpc('eth_call', [{ to: devnet.token.address, data }, 'latest']), 32, seconds)

  // Signed ETH transfers end to end: 10 senders x 50, senders in parallel.
  const senders = devnet.accounts.map((a) => privateKeyToAccount(a.privateKey))
  const perSender = quick ? 10 : 50
  const rounds: number[] = []
  for (let round = 0; round < 3; round++) {
    const signed = await Promise.all(
      senders.map(async (s, i) => {
        const base = BigInt((await devnet.request({ method: 'eth_getTransactionCount', params: [s.address, 'pending'] })) as string)
        return Promise.all(
          Array.from({ length: perSender }, (_, n) =>
            s.signTransaction({ chainId: 31337, nonce: Number(base) + n, to: senders[(i + 1) % senders.length]!.address, value: 1n, gas: 21000n, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1') }),
          ),
        )
      }),
    )
    const u = new URL(devnet.url)
    const t = performance.now()
    await Promise.all(
      signed.map(async (txs) => {
        let last = ''
        for (const raw of txs) last = JSON.parse(await post(u, rpc('eth_sendRawTransaction', [raw]))).result
        while (!JSON.parse(await post(u, rpc('eth_getTransactionReceipt', [last]))).result) await new Promise((r) => setTimeout(r, 1))
      }),
    )
    rounds.push(Math.round((senders.length * perSender) / ((performance.now() - t) / 1000)))
  }
  figures.ethTransfersPerSecondAuto = rounds
  figures.blocks = Number(devnet.node.chain.height())
  figures.rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20)
  await devnet.close()
  console.log(JSON.stringify(figures, null, 2))
}


const option = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

/** bin/devnet.js runs the CLI bundle when present: rebuild dist/ when any source is newer (scripts/build.mjs). */
function ensureBuilt() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] })
}

/** Rows of a SUMMARY.md table: measurement label -> unit and one cell per peer column. */
function readSummary(file: string) {
  const rows = new Map<string, { unit: string; cells: Map<string, string> }>()
  const peers: string[] = []
  if (!existsSync(file)) return { rows, peers }
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('|')) continue
    const cells = line.split('|').slice(1, -1).map((c) => c.trim())
    if (cells[0] === 'measurement') {
      peers.length = 0
      peers.push(...cells.slice(2))
      continue
    }
    if (/^-+$/.test(cells[0]!.replace(/:/g, '')) || peers.length === 0) continue
    rows.set(cells[0]!, { unit: cells[1]!, cells: new Map(peers.map((p, i) => [p, cells[i + 2] ?? ''])) })
  }
  return { rows, peers }
}

function runHarness(args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [join(harnessDir, 'peers.mjs'), ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PEERS_DIR: peersDir },
    })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`peers.mjs exited with ${code}`))))
  })
}

async function withHarness(quick: boolean) {
  ensureBuilt()
  const outDir = mkdtempSync(join(tmpdir(), 'devnet-bench-'))
  const common = ['--out-dir', outDir, '--no-summary', ...(quick ? ['--quick'] : [])]
  const only = option('--only')
  if (only) common.push('--only', only)
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string
  await runHarness([
    '--spawn', `node ${join(root, 'bin', 'devnet.js')} start --port {port} --mining auto --quiet`,
    '--name', 'devnet', '--cwd', root, '--version-string', `devnet ${version} (${root})`, ...common,
  ])
  const peers = option('--peers')
  if (peers) await runHarness(['--peers', peers, ...common])
  // The harness' own table of this run (devnet + peers run now), in the stored summary's rows and units.
  execFileSync(process.execPath, [join(harnessDir, 'peers.mjs'), '--summary', '--out-dir', outDir], { stdio: 'ignore', env: { ...process.env, PEERS_DIR: peersDir } })
  const now = readSummary(join(outDir, 'SUMMARY.md'))
  const stored = readSummary(join(harnessDir, 'results', 'SUMMARY.md'))
  const columns = [...now.peers.map((p) => `${p} (now)`), ...stored.peers.map((p) => `${p} (stored)`)]
  const lines = [`| measurement | unit | ${columns.join(' | ')} |`, `|---|---|${columns.map(() => '---:').join('|')}|`]
  for (const [label, row] of now.rows) {
    const ours = now.peers.map((p) => row.cells.get(p) ?? '')
    if (ours.every((c) => c === '' || c === '—')) continue
    const theirs = stored.peers.map((p) => stored.rows.get(label)?.cells.get(p) ?? '')
    lines.push(`| ${label} | ${row.unit} | ${[...ours, ...theirs].join(' | ')} |`)
  }
  console.log(lines.join('\n'))
  console.log(`\nraw figures: ${outDir}/*.json; stored peers: ${join(harnessDir, 'results', 'SUMMARY.md')}`)
  if (quick) console.log('(--quick: 1 s loops and 50 txs, not comparable with the stored full runs)')
}

async function main() {
  const quick = process.argv.includes('--quick')
  const harness = existsSync(join(harnessDir, 'peers.mjs'))
  const ready = existsSync(join(peersDir, 'node_modules', 'viem')) && existsSync(join(peersDir, 'node_modules', 'solc'))
  if (harness && !ready) console.error(`bench: the peer harness needs its packages in ${peersDir}: run \`bash ${join(harnessDir, 'setup.sh')}\` once. Falling back to in-process figures.`)
  if (harness && ready && !process.argv.includes('--in-process')) await withHarness(quick)
  else await inProcess(quick)
  // Test-harness latencies (snapshot, revert, state dump and load after a long chain) beside Anvil's, unless steps were picked.
  if (!option('--only') && !process.argv.includes('--in-process')) {
    ensureBuilt()
    console.log(`\ntest-harness operations (bench/testOps.ts; Anvil from ${peersDir} when installed):`)
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'testOps.ts'), '--blocks', quick ? '500' : '10000', '--samples', quick ? '20' : '100'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, PEERS_DIR: peersDir },
    })
  }
}

main().then(() => process.exit(0))

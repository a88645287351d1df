/**
 * What a fork start still compiles that its code caches lack: for each checkout in `DIRS` (comma list, paths
 * relative to this one, each with its dist/bundle built; default this one), a copy of dist/bundle is started as
 * bin/devnet.js starts it, with DEVNET_CODE_CACHE_WRITE=1, as a fork of an in-process devnet with auto mining, sent
 * bench/forkRowAB.ts's requests (a cold read, a hundred cached ones, 100 token transfers), then a warm restart on the
 * same fork cache and one read; each run saves its caches over the copy's, and the growth of each file is the code
 * (bytecode and its metadata) that run compiled lazily. Deterministic, unlike a timing: a check that the caches
 * cover a path, not a speed figure.
 *
 *   DIRS=../base,. npx tsx bench/codeCacheCoverage.ts
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { paymentTokenAbi } from '../src/artifacts/paymentToken.js'
import { startDevnet } from '../src/index.js'
import { rpc } from './peerProcess.js'

const sender = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 0 })
const remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const token = remote.token.address
const pin = remote.node.chain.height()
const sizes = (dir: string) => Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith('.v8cache')).map((f) => [f.split('-')[0], statSync(join(dir, f)).size]))

/** One CLI run from `bundles` that saves its caches when done; `use` gets its URL. */
async function run(root: string, bundles: string, forkCache: string, use: (url: string) => Promise<void>) {
  const launcher = `import { runCliBundles } from ${JSON.stringify(join(root, 'bin', 'codeCache.js'))}; runCliBundles(${JSON.stringify(bundles)}, process.argv.slice(2))`
  const child = spawn(process.execPath, ['--input-type=module', '-e', launcher, 'start', '--port', '0', '--quiet', '--no-ui', '--mining', 'auto', '--fork-url', remote.url, '--fork-block', String(pin), '--fork-cache', forkCache], {
    cwd: root, env: { ...process.env, DEVNET_CODE_CACHE_WRITE: '1', DEVNET_FROM_SOURCE: '' }, stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise((r) => child.once('exit', r))
  let out = ''
  const url = await new Promise<string>((resolve) => child.stdout.on('data', (d) => { out += d; const m = /Listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]!) }))
  await use(url)
  child.stdin.end()
  if ((await exited) !== 0) throw new Error(`${root}: the CLI run failed`)
}

for (const dir of (process.env.DIRS ?? '.').split(',')) {
  const root = join(process.cwd(), dir)
  const bundles = join(root, '.coverage', 'bundle')
  rmSync(join(root, '.coverage'), { recursive: true, force: true })
  cpSync(join(root, 'dist', 'bundle'), bundles, { recursive: true })
  const forkCache = mkdtempSync(join(tmpdir(), 'cc-coverage-'))
  const before = sizes(bundles)
  await run(root, bundles, forkCache, async (url) => {
    for (let i = 0; i <= 100; i++) await rpc(url, 'eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [sender.address, 'latest']))
    let last = ''
    for (let i = 0; i < 100; i++) {
      const data = encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [`0x${(i + 1).toString(16).padStart(40, '0')}`, 1n] })
      last = await rpc<string>(url, 'eth_sendRawTransaction', [await sender.signTransaction({ chainId: 31337, type: 'eip1559', nonce: nonce + i, to: token, gas: 100_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n, data })])
    }
    while ((await rpc(url, 'eth_getTransactionReceipt', [last])) === null) await new Promise((r) => setTimeout(r, 1))
  })
  const cold = sizes(bundles)
  await run(root, bundles, forkCache, async (url) => void (await rpc(url, 'eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])))
  const warm = sizes(bundles)
  const grew = (a: Record<string, number>, b: Record<string, number>) => Object.keys(a).map((k) => `${k} +${((b[k]! - a[k]!) / 1024).toFixed(1)} KiB`).join(', ')
  console.log(`${root}: caches ${Object.entries(before).map(([k, v]) => `${k} ${(v / 1024).toFixed(0)} KiB`).join(', ')}; cold fork + 100 transfers compiled ${grew(before, cold)}; warm restart + read then ${grew(cold, warm)}`)
  rmSync(join(root, '.coverage'), { recursive: true, force: true })
  rmSync(forkCache, { recursive: true, force: true })
}
await remote.close()

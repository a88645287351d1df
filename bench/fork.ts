/**
 * `npm run bench:fork`: forking figures. A devnet in this process plays the
 * upstream (token transfers, a few hundred blocks); every HTTP request to it
 * goes through a counting proxy, so the remote calls of each forking node are
 * counted the same way. devnet runs twice: as a process of its own (as Anvil
 * does; `npm run build` first, or the source runs through tsx) and inside
 * this process (sharing its thread with the upstream). Rows: time to first answer, first read of a cold
 * account, a cached read, 100 token transfers on the fork, and a restart
 * with a warm cache (time, remote calls). With `anvil` on the PATH, Anvil
 * `--fork-url` runs against the same upstream in the same run, after a
 * throwaway round that warms the upstream. `ROUNDS=N` runs each node N
 * times, alternated, and prints medians with their range. Asserts nothing;
 * figures on a loaded machine are noise.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startDevnet } from '../src/index.js'
import { forkSender as sender, signTransfer, startForkUpstream } from './forkUpstream.js'
import { countingProxy, devnetCommand, freePort, root, rpc, waitUp } from './peerProcess.js'
import { statCpuMs } from './threadCpu.js'

/** A forking node; `pid` when it is a process of its own, whose CPU time the rows then report. */
type Node = { url: string; pid?: number | undefined; stop(): Promise<void> }

/** CPU time (user + system, ms) a process has used so far, from /proc (10 ms ticks); undefined elsewhere. */
function cpuOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    return statCpuMs(pid)
  } catch {
    return undefined
  }
}
type Starter = (upstream: string, block: bigint, cacheDir: string) => Promise<Node>

const devnetStarter: Starter = async (upstream, block, cacheDir) => {
  const d = await startDevnet({ mining: 'auto', quiet: true, fork: { url: upstream, blockNumber: Number(block), cacheDir } })
  return { url: d.url, stop: () => d.close() }
}

/**
 * devnet as a user runs it (`devnet start --fork-url`, bin/devnet.js: the built bundle when dist/ has one,
 * else the source through tsx), a process of its own as Anvil is: in this process it shares one thread
 * with the upstream, the proxy and the client.
 */
const devnetProcessStarter =
  (env: NodeJS.ProcessEnv = process.env): Starter =>
  async (upstream, block, cacheDir) => {
    const port = await freePort()
    const { command, args } = devnetCommand('--mining', 'auto', '--no-ui', '--fork-url', upstream, '--fork-block', String(block), '--fork-cache', cacheDir, '--port', String(port))
    const child = spawn(command, args, { stdio: 'ignore', cwd: root, env })
    const url = `http://127.0.0.1:${port}`
    await waitUp(url, 20)
    return { url, pid: child.pid, stop: async () => void (await new Promise((r) => child.once('exit', r).kill('SIGTERM'))) }
  }

const anvilStarter: Starter = async (upstream, block, cacheDir) => {
  const port = await freePort()
  const child = spawn('anvil', ['--fork-url', upstream, '--fork-block-number', String(block), '--port', String(port), '--silent'], {
    stdio: 'ignore',
    // Anvil keeps fork reads in $HOME/.foundry/cache/rpc/<chain>/<block> whatever FOUNDRY_CACHE_PATH says:
    // a HOME per run makes the first start cold (it was warm from any earlier run) and the restart warm.
    env: { ...process.env, HOME: cacheDir, FOUNDRY_CACHE_PATH: cacheDir },
  })
  const url = `http://127.0.0.1:${port}`
  await waitUp(url, 20)
  // Waits for the exit: Anvil writes its fork cache as it exits, and the next start (or the cleanup) must see it whole.
  return { url, pid: child.pid, stop: async () => void (await new Promise((r) => child.once('exit', r).kill('SIGTERM'))) }
}

async function measure(name: string, start: Starter, upstream: string, proxy: Awaited<ReturnType<typeof countingProxy>>, pin: bigint, token: `0x${string}`) {
  const cacheDir = mkdtempSync(join(tmpdir(), `fork-bench-${name}-`))
  const cold = `0x${'c0'.repeat(20)}`
  proxy.take()
  let t = performance.now()
  const node = await start(upstream, pin, cacheDir)
  await rpc(node.url, 'eth_chainId')
  const firstAnswer = performance.now() - t
  t = performance.now()
  await rpc(node.url, 'eth_getBalance', [cold, 'latest'])
  const coldRead = performance.now() - t
  t = performance.now()
  for (let i = 0; i < 100; i++) await rpc(node.url, 'eth_getBalance', [cold, 'latest'])
  const cachedRead = (performance.now() - t) / 100
  const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [sender.address, 'latest']))
  const chainId = Number(await rpc(node.url, 'eth_chainId'))
  const cpuBefore = cpuOf(node.pid)
  t = performance.now()
  let last = '0x' as `0x${string}`
  for (let i = 0; i < 100; i++) {
    const raw = await signTransfer(token, nonce + i, i + 1, { chainId })
    last = await rpc<`0x${string}`>(node.url, 'eth_sendRawTransaction', [raw])
  }
  // Anvil mines after it answers: the row ends when the last transfer has a receipt, on both nodes.
  for (let tries = 0; (await rpc(node.url, 'eth_getTransactionReceipt', [last])) === null; tries++) {
    if (tries > 30_000) throw new Error(`${name}: the last transfer was never mined`)
    await new Promise((r) => setTimeout(r, 1))
  }
  const transfers = performance.now() - t
  const cpuAfter = cpuOf(node.pid)
  const transfersCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore
  const coldCalls = proxy.take()
  await node.stop()
  t = performance.now()
  const warm = await start(upstream, pin, cacheDir)
  await rpc(warm.url, 'eth_chainId')
  await rpc(warm.url, 'eth_getBalance', [cold, 'latest'])
  const warmStart = performance.now() - t
  const warmCalls = proxy.take()
  await warm.stop()
  // Anvil may still be writing its cache as it exits: retry instead of failing the run on ENOTEMPTY.
  rmSync(cacheDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
  return { name, firstAnswer, coldRead, cachedRead, transfers, transfersCpu, coldCalls, warmStart, warmCalls }
}

async function main() {
  const { remote, token, pin } = await startForkUpstream()
  const proxy = await countingProxy(remote.url)
  // A throwaway round first: the upstream (an in-process devnet) and this process's client code are then warm for
  // every row alike; otherwise the first row pays for the upstream's first historical reads and later rows do not.
  await measure('warm-up', devnetStarter, proxy.url, proxy, pin, token)
  const starters: [string, Starter][] = [['devnet (process)', devnetProcessStarter()]]
  // Node 20 parses NODE_EXTRA_CA_CERTS's certificates as it starts, before any script (a whole system bundle: ~45 ms
  // of CPU on the bench machine, whose environment sets it); Anvil never reads it. A second row shows devnet's
  // process as it starts where the variable is unset, as on most machines; the first row is this environment's.
  const { NODE_EXTRA_CA_CERTS: extraCerts, ...withoutExtraCerts } = process.env
  if (extraCerts !== undefined) starters.push(['devnet (process, NODE_EXTRA_CA_CERTS unset)', devnetProcessStarter(withoutExtraCerts)])
  starters.push(['devnet (in this process)', devnetStarter])
  let hasAnvil = false
  try {
    execFileSync('anvil', ['--version'], { stdio: 'ignore' })
    hasAnvil = true
  } catch {}
  if (hasAnvil) starters.push(['anvil', anvilStarter])
  // ROUNDS=N: each node N times, the order reversed every other round; each cell is then the median (min–max).
  const rounds = Number(process.env.ROUNDS ?? 1)
  const runs = new Map<string, Awaited<ReturnType<typeof measure>>[]>(starters.map(([name]) => [name, []]))
  for (let round = 0; round < rounds; round++)
    for (const [name, start] of round % 2 ? [...starters].reverse() : starters) runs.get(name)!.push(await measure(name, start, proxy.url, proxy, pin, token))
  const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
  const cell = (of: Awaited<ReturnType<typeof measure>>[], pick: (r: Awaited<ReturnType<typeof measure>>) => number | undefined, format: (n: number) => string) => {
    const values = of.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b)
    if (values.length === 0) return 'n/a'
    const median = format(values[values.length >> 1]!)
    return values.length === 1 ? median : `${median} (${format(values[0]!)}–${format(values.at(-1)!)})`
  }
  console.log(`upstream: in-process devnet, fork block ${pin}; remote calls = HTTP requests reaching it${rounds > 1 ? `; ${rounds} rounds, medians (min–max)` : ''}`)
  console.log('| node | first answer | cold account read | cached read | 100 token transfers | their CPU (node process) | remote calls (cold) | warm restart + read | remote calls (warm) |')
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, of] of runs)
    console.log(
      `| ${name} | ${cell(of, (r) => r.firstAnswer, ms)} | ${cell(of, (r) => r.coldRead, ms)} | ${cell(of, (r) => r.cachedRead, ms)} | ${cell(of, (r) => r.transfers, ms)} | ${cell(of, (r) => r.transfersCpu, ms)} | ${cell(of, (r) => r.coldCalls, String)} | ${cell(of, (r) => r.warmStart, ms)} | ${cell(of, (r) => r.warmCalls, String)} |`,
    )
  if (extraCerts !== undefined) console.log(`NODE_EXTRA_CA_CERTS=${extraCerts} in this environment: Node parses it at every start, Anvil does not`)
  if (!hasAnvil) console.log('anvil: not on the PATH, no Anvil row')
  await proxy.close()
  await remote.close()
}

await main()

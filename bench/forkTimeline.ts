/**
 * `npx tsx bench/forkTimeline.ts`: where the time of bench/fork.ts's "100 token transfers" row goes, transfer by
 * transfer, for devnet as a process of its own and for Anvil (when `anvil` is on the PATH), against the same
 * in-process upstream. The upstream sits behind a proxy that stamps each request a forking node makes, so each
 * transfer splits into:
 *
 * - before: from the client's send to the node's first upstream request (the node reading, decoding and
 *   admitting the transaction; for devnet also the end of the previous block's seal if it is still running);
 * - upstream: the round trips to the upstream (the proxy and the upstream share this process with the client);
 * - after: from the last upstream reply to the answer (execution, the answer's write);
 * - client: from an answer to the next send (signing).
 *
 * Prints per node: the row's wall time, the first transfers' times (a fresh process's warm-up), the medians of
 * each part over the rest, and upstream requests per transfer. `ROUNDS` (1) alternates the nodes; devnet's
 * process starts without NODE_EXTRA_CA_CERTS. `DIRS` (comma list, default this checkout; each with bin/ and dist/
 * built, as bench/forkRowAB.ts takes them) runs devnet from each, for A/B runs. Asserts nothing: figures on a
 * loaded machine are noise.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { forkSender, signTransfer, startForkUpstream } from './forkUpstream.js'
import { countingProxy, freePort, p50, root, rpc, waitUp } from './peerProcess.js'

const { remote, token, pin } = await startForkUpstream()

/** Upstream requests as the proxy saw them: when each came in and when its reply went out. */
const proxy = await countingProxy(remote.url)

type Transfer = { send: number; answer: number; signed: number; calls: { in: number; out: number }[] }

async function row(name: string, dir: string | undefined, cacheDir: string): Promise<Transfer[]> {
  const port = await freePort()
  const { NODE_EXTRA_CA_CERTS: _, ...env } = process.env
  const flags = ['--mining', 'auto', '--no-ui', '--fork-url', proxy.url, '--fork-block', String(pin), '--fork-cache', cacheDir, '--port', String(port)]
  const { command, args } =
    dir === undefined
      ? { command: 'anvil', args: ['--fork-url', proxy.url, '--fork-block-number', String(pin), '--port', String(port), '--silent'] }
      : { command: process.execPath, args: [join(dir, 'bin', 'devnet.js'), 'start', '--quiet', ...flags] }
  // Anvil keeps its fork cache under $HOME: a home per run keeps the start cold, as bench/fork.ts does.
  const child = spawn(command, args, { stdio: 'ignore', cwd: root, env: name === 'anvil' ? { ...process.env, HOME: cacheDir } : env })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitUp(url, 20)
    // What the bench row does before its transfers.
    const cold = `0x${'c0'.repeat(20)}`
    for (let i = 0; i <= 100; i++) await rpc(url, 'eth_getBalance', [cold, 'latest'])
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [forkSender.address, 'latest']))
    proxy.calls.length = 0
    const transfers: Transfer[] = []
    let last = ''
    for (let i = 0; i < 100; i++) {
      const started = performance.now()
      const raw = await signTransfer(token, nonce + i, i + 1)
      const send = performance.now()
      last = await rpc<string>(url, 'eth_sendRawTransaction', [raw])
      transfers.push({ send, answer: performance.now(), signed: send - started, calls: [] })
    }
    while ((await rpc(url, 'eth_getTransactionReceipt', [last])) === null) await new Promise((r) => setTimeout(r, 1))
    // Each upstream request belongs to the transfer whose send came last before it.
    for (const call of proxy.calls) {
      let owner: Transfer | undefined
      for (const t of transfers) if (t.send <= call.in) owner = t
      owner?.calls.push(call)
    }
    return transfers
  } finally {
    await new Promise((r) => child.once('exit', r).kill('SIGTERM'))
  }
}

const dirs = (process.env.DIRS ?? '.').split(',').map((d) => join(process.cwd(), d))
const nodes: [string, string | undefined][] = dirs.map((dir) => [dirs.length > 1 ? `devnet ${dir}` : 'devnet (process)', dir])
try {
  execFileSync('anvil', ['--version'], { stdio: 'ignore' })
  nodes.push(['anvil', undefined])
} catch {
  console.log('anvil: not on the PATH, devnet only')
}
const ms = (n: number) => n.toFixed(2)
for (let round = 0; round < Number(process.env.ROUNDS ?? 1); round++)
  for (const [name, dir] of round % 2 ? [...nodes].reverse() : nodes) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'fork-timeline-'))
    const transfers = await row(name, dir, cacheDir)
    rmSync(cacheDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
    const total = transfers.at(-1)!.answer - transfers[0]!.send + transfers[0]!.signed
    const each = transfers.map((t) => t.answer - t.send)
    const rest = transfers.slice(5)
    const withCalls = rest.filter((t) => t.calls.length > 0)
    const before = withCalls.map((t) => t.calls[0]!.in - t.send)
    const during = withCalls.map((t) => t.calls.reduce((sum, c) => sum + (c.out - c.in), 0))
    const after = withCalls.map((t) => t.answer - Math.max(...t.calls.map((c) => c.out)))
    console.log(
      `${name}: ${total.toFixed(0)} ms for 100 transfers; send to answer, first five: ${each.slice(0, 5).map((n) => n.toFixed(1)).join(', ')} ms; ` +
        `transfers 6-100, medians: send to answer ${ms(p50(rest.map((t) => t.answer - t.send)))}, before the upstream ${ms(p50(before))}, ` +
        `upstream ${ms(p50(during))}, after it ${ms(p50(after))}, client ${ms(p50(rest.map((t) => t.signed)))} ms; ` +
        `upstream requests per transfer ${(rest.reduce((n, t) => n + t.calls.length, 0) / rest.length).toFixed(2)}; ` +
        `slowest send to answer ${ms(Math.max(...rest.map((t) => t.answer - t.send)))} ms`,
    )
  }
await proxy.close()
await remote.close()

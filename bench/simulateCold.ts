/**
 * eth_simulateV1 as the shared harness' step g measures it (../shared/bench/peers.mjs stepSimulate): the built CLI
 * (bin/devnet.js: the bundle and its V8 code cache) spawned with `--mining auto`, reached over HTTP, its shared paths
 * warmed first as the harness' earlier steps warm them (token transfers, balanceOf calls), then each case sent as the
 * harness sends it: a probe, a first request, then 30 timed ones. Reports per case the p50 latency and the devnet
 * process' CPU per request over those 30 (utime + stime from /proc, all its threads): on a loaded machine the CPU
 * figure is the one to compare. Runs `--runs` fresh processes and prints each run and the median.
 *
 * `--profile DIR` starts the node with an inspector and records a V8 CPU profile of each case's 30 requests
 * (`--interval` µs between samples, 100 by default); `--dump FILE` writes the three answers (JSON) of the last run,
 * to compare two builds byte for byte. `--peer anvil` measures Anvil (as the harness installs it) instead;
 * `--warm N` sends each case N more times before measuring (what the same work costs once compiled); `--distinct`
 * makes every request's text differ (an unknown payload key, which the method ignores), so that none is answered
 * from the dispatcher's memo; `--cli FILE` runs another build's bin/devnet.js; `--requests N` times N requests
 * per case instead of the harness' 30 (a profile with more samples); `--cases a,b` measures only those cases.
 *
 *   npx tsx bench/simulateCold.ts [--runs 5] [--profile DIR] [--interval 100] [--dump FILE] [--peer anvil] [--warm N] [--requests N] [--cases one_call,…]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Hex, encodeDeployData, encodeFunctionData, parseAbi, toHex } from 'viem'
import { label, simulateCases } from './simulateCases.js'
import WebSocket from 'ws'
import { anvilBin, freePort, post, root, waitUp } from './peerProcess.js'
import { mainThreadCpuMs, threadsCpuMs } from './threadCpu.js'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const runs = Number(arg('--runs') ?? 5)
const profileDir = arg('--profile')
const interval = Number(arg('--interval') ?? 100)
const dumpFile = arg('--dump')
const peer = arg('--peer') ?? 'devnet'
const warm = Number(arg('--warm') ?? 0)
const cli = arg('--cli') ?? join(root, 'bin', 'devnet.js')
const distinct = process.argv.includes('--distinct')
const requests = Number(arg('--requests') ?? 30)
const only = arg('--cases')?.split(',')

const artifact = JSON.parse(readFileSync(join(root, '..', 'shared', 'bench', 'contracts', 'build', 'BenchToken.json'), 'utf8')) as { bytecode: Hex; abi: unknown[] }
const abi = parseAbi(['function transfer(address to, uint256 value) returns (bool)', 'function mint(address to, uint256 value)', 'function balanceOf(address) view returns (uint256)'])


/** A minimal Chrome DevTools Protocol client over the node's inspector WebSocket. */
async function inspector(port: number) {
  let list: { webSocketDebuggerUrl: string }[] = []
  for (let i = 0; i < 100 && list.length === 0; i++) {
    try {
      list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as typeof list
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl)
  await new Promise((r) => ws.once('open', r))
  let id = 0
  const pending = new Map<number, (v: unknown) => void>()
  ws.on('message', (m) => {
    const msg = JSON.parse(String(m)) as { id?: number; result?: unknown }
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result)
  })
  return {
    post: (method: string, params: object = {}) =>
      new Promise<unknown>((resolve) => {
        pending.set(++id, resolve)
        ws.send(JSON.stringify({ id, method, params }))
      }),
    close: () => ws.close(),
  }
}

async function oneRun(run: number) {
  const port = await freePort()
  const inspectPort = profileDir ? await freePort() : 0
  const nodeFlags = [...(profileDir ? [`--inspect=127.0.0.1:${inspectPort}`] : []), ...(process.env.NODE_FLAGS?.split(' ').filter(Boolean) ?? [])]
  const child: ChildProcess =
    peer === 'anvil'
      ? spawn(anvilBin, ['--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' })
      : spawn(process.execPath, [...nodeFlags, cli, 'start', '--port', String(port), '--mining', 'auto', '--quiet'], { stdio: 'ignore', cwd: root, env: { ...process.env, DEVNET_FROM_SOURCE: undefined } })
  const url = new URL(`http://127.0.0.1:${port}`)
  let id = 0
  const call = async (method: string, params: unknown[]) => {
    const body = JSON.parse(await post(url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))) as { result?: unknown; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
  try {
    await waitUp(url.href)
    const cdp = profileDir ? await inspector(inspectPort) : undefined
    const [from] = (await call('eth_accounts', [])) as Hex[]
    const deploy = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: ['Bench USD', '2', 'BUSD'] })
    const h = await call('eth_sendTransaction', [{ from, data: deploy, gas: toHex(5_000_000) }])
    const receiptOf = async () => (await call('eth_getTransactionReceipt', [h])) as { contractAddress: Hex } | null
    let receipt = await receiptOf()
    while (receipt === null) receipt = await receiptOf()
    const token = receipt.contractAddress
    await call('eth_sendTransaction', [{ from, to: token, data: encodeFunctionData({ abi, functionName: 'mint', args: [from!, 10n ** 15n] }) }])
    // The earlier steps' shared paths: transactions (steps d-f) and balanceOf calls (step c).
    for (let i = 0; i < 300; i++) await call('eth_sendTransaction', [{ from, to: token, data: encodeFunctionData({ abi, functionName: 'transfer', args: [label(`warm-${i}`), 1n] }) }])
    const balanceOf = encodeFunctionData({ abi, functionName: 'balanceOf', args: [from!] })
    for (let i = 0; i < 2000; i++) await call('eth_call', [{ to: token, data: balanceOf }, 'latest'])

    const cases: Record<string, unknown[]> = simulateCases(token)
    await call('eth_simulateV1', cases.one_call!)
    const out: Record<string, { p50: number; cpu: number; main: number }> = {}
    const answers: Record<string, unknown> = {}
    for (const [name, params] of Object.entries(cases)) {
      if (only && !only.includes(name)) continue
      answers[name] = await call('eth_simulateV1', params)
      for (let i = 0; i < warm; i++) await call('eth_simulateV1', params)
      if (cdp) {
        await cdp.post('Profiler.enable')
        await cdp.post('Profiler.setSamplingInterval', { interval })
        await cdp.post('Profiler.start')
      }
      const lat: number[] = []
      const cpu0 = threadsCpuMs(child.pid!)
      const main0 = mainThreadCpuMs(child.pid!)
      for (let i = 0; i < requests; i++) {
        const sent = distinct ? [{ ...(params[0] as object), distinct: i }, ...params.slice(1)] : params
        const t = performance.now()
        await call('eth_simulateV1', sent)
        lat.push(performance.now() - t)
      }
      const cpu = (threadsCpuMs(child.pid!) - cpu0) / requests
      const main = (mainThreadCpuMs(child.pid!) - main0) / requests
      if (cdp) {
        const { profile } = (await cdp.post('Profiler.stop')) as { profile: unknown }
        writeFileSync(join(profileDir!, `${name}-${run}.cpuprofile`), JSON.stringify(profile))
      }
      lat.sort((a, b) => a - b)
      out[name] = { p50: lat[requests >> 1]!, cpu, main }
    }
    cdp?.close()
    if (dumpFile) writeFileSync(dumpFile, JSON.stringify(answers, null, 1))
    return out
  } finally {
    child.kill('SIGTERM')
  }
}

const all: Record<string, { p50: number; cpu: number; main: number }>[] = []
for (let r = 0; r < runs; r++) {
  const out = await oneRun(r)
  all.push(out)
  console.log(`run ${r}: ${Object.entries(out).map(([k, v]) => `${k} p50 ${v.p50.toFixed(3)} cpu ${v.cpu.toFixed(2)} main ${v.main.toFixed(2)}`).join('   ')}`)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
for (const name of Object.keys(all[0]!))
  console.log(`${name.padEnd(28)} median p50 ${median(all.map((o) => o[name]!.p50)).toFixed(3)} ms   cpu ${median(all.map((o) => o[name]!.cpu)).toFixed(3)} ms/req   main thread ${median(all.map((o) => o[name]!.main)).toFixed(3)} ms/req`)

/**
 * `npx tsx bench/frontCpu.ts [--a DIR] [--rounds N]`: how much CPU a start
 * spends between Node's own start and its first answer, the part devnet's
 * front decides (src/cli/front.ts), for a plain start, a cold fork start and
 * its warm restart: each start runs under bench/firstAnswerHook.cjs, which
 * records the process's exact CPU time (all threads) when the preload runs,
 * when the socket listens and when the first answer is written; the client
 * polls eth_chainId every millisecond. A/B as bench/forkStart.ts: this
 * checkout (B) and, with `--a DIR`, another one's bin/ and dist/, alternated
 * each round, against one in-process upstream. Medians. `--floor` adds a row
 * for a script that only binds a net.Server (as listenOn.ts does) and writes
 * one canned answer: what any Node server costs from the same point.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startDevnet } from '../src/index.js'
import { freePort, p50, root, rpc, waitUp } from './peerProcess.js'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i < 0 ? undefined : process.argv[i + 1]
}
const rounds = Number(arg('--rounds') ?? 9)
const hook = join(root, 'bench', 'firstAnswerHook.cjs')
const variants: [string, string][] = [['B (this checkout)', root]]
if (arg('--a')) variants.unshift(['A', arg('--a')!])

type Mark = { wallMs: number; cpuMs: number }
type Marks = { preload: Mark; listening: Mark; answer: Mark }
type Kind = 'plain' | 'cold' | 'warm' | 'floor'

/** A server that binds and answers, nothing else: the floor under any start. */
const floorScript = `'use strict'
const net = require('node:net')
const port = Number(process.argv[process.argv.indexOf('--port') + 1])
const body = '{"jsonrpc":"2.0","id":1,"result":"0x7a69"}'
const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (socket) => socket.on('data', () => socket.write('HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + body.length + '\\r\\n\\r\\n' + body)))
server._listen2('127.0.0.1', port, 4, undefined, undefined, 0)
process.on('SIGTERM', () => process.exit(0))
`

async function start(entry: string, cwd: string, args: string[], read: boolean): Promise<Marks> {
  const port = await freePort()
  const child = spawn(process.execPath, ['-r', hook, entry, ...args, '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'], cwd })
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  await waitUp(url, 1)
  // A cold start's read fills its cache, which the warm restart then finds.
  if (read) await rpc(url, 'eth_getBalance', [`0x${'c0'.repeat(20)}`, 'latest'])
  child.kill('SIGTERM')
  await exited
  const line = /^FIRST_ANSWER (.*)$/m.exec(err)
  if (!line) throw new Error(`no FIRST_ANSWER line: ${err}`)
  return JSON.parse(line[1]!) as Marks
}

async function main() {
  const remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  await remote.request({ method: 'anvil_mine', params: ['0x200'] })
  const floorDir = mkdtempSync(join(tmpdir(), 'front-cpu-floor-'))
  const floor = join(floorDir, 'floor.cjs')
  writeFileSync(floor, floorScript)
  const rows: [string, string][] = [...variants, ...(process.argv.includes('--floor') ? [['floor', floorDir] as [string, string]] : [])]
  const results = new Map<string, Record<Kind, Marks[]>>()
  for (let round = 0; round < rounds; round++)
    for (const [name, dir] of round % 2 ? [...rows].reverse() : rows) {
      const r = results.get(name) ?? { plain: [], cold: [], warm: [], floor: [] }
      results.set(name, r)
      if (name === 'floor') {
        r.floor.push(await start(floor, dir, [], false))
        continue
      }
      const entry = join(dir, 'bin', 'devnet.js')
      const cacheDir = mkdtempSync(join(tmpdir(), 'front-cpu-'))
      const fork = ['start', '--quiet', '--mining', 'auto', '--no-ui', '--fork-url', remote.url, '--fork-block', '500', '--fork-cache', cacheDir]
      r.plain.push(await start(entry, dir, ['start', '--quiet', '--mining', 'auto', '--no-ui'], false))
      r.cold.push(await start(entry, dir, fork, true))
      r.warm.push(await start(entry, dir, fork, false))
      rmSync(cacheDir, { recursive: true, force: true })
    }
  const ms = (xs: number[]) => p50(xs).toFixed(1)
  console.log(`${rounds} rounds, medians (ms); CPU of the whole process, from the preload (Node's own start done) to the socket listening and to the first answer written`)
  console.log('| variant | start | preload: wall | its CPU | CPU to listening | CPU to first answer | wall to first answer |')
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, byKind] of results)
    for (const kind of ['plain', 'cold', 'warm', 'floor'] as Kind[]) {
      const xs = byKind[kind]
      if (xs.length === 0) continue
      console.log(
        `| ${name} | ${kind} | ${ms(xs.map((m) => m.preload.wallMs))} | ${ms(xs.map((m) => m.preload.cpuMs))} | ${ms(xs.map((m) => m.listening.cpuMs - m.preload.cpuMs))} | ${ms(xs.map((m) => m.answer.cpuMs - m.preload.cpuMs))} | ${ms(xs.map((m) => m.answer.wallMs))} |`,
      )
    }
  rmSync(floorDir, { recursive: true, force: true })
  await remote.close()
}

await main()

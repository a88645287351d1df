/**
 * `npm run bench:fixture` (tsx bench/fixture.ts [blocks]): builds a chain of
 * 10,000 blocks (every 10th with three transactions: two ETH transfers and a
 * token transfer), dumps it to a fixture file and prints the dump time (p50
 * of five dumps, wall and CPU time; the five must give the same bytes), the
 * file size and the load time (p50 of five loads into fresh devnets, from
 * reading the file to the swapped-in chain; with the CPU time of the same
 * loads, steadier than wall time on a shared machine), then the time of one load with
 * the full state check (`verifyState`). Asserts nothing.
 *
 * `--keep FILE` keeps the fixture at FILE, and when FILE already exists
 * skips building and dumping and only measures loads.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeFunctionData, parseAbi } from 'viem'
import { type SendRequest, createDevnet } from '../src/index.js'
import { readFixtureFile } from '../src/node/fixture/file.js'

const args = process.argv.slice(2)
const keepAt = args.indexOf('--keep')
const kept = keepAt >= 0 ? args.splice(keepAt, 2)[1] : undefined
const mineAt = args.indexOf('--mine')
// --mine: the chain of bench/testOps.ts (anvil_mine in 100s, a transfer every 100 blocks) instead.
const mine = mineAt >= 0 && args.splice(mineAt, 1).length > 0
const blocks = Number(args[0] ?? 10_000)
const options = { mining: 'manual', clock: 'virtual', quiet: true } as const
const dir = mkdtempSync(join(tmpdir(), 'devnet-bench-fixture-'))
const file = kept ?? join(dir, 'chain.fixture.json')
const dumps = 5
const list = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(', ')
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!.toFixed(0)
const ms = (start: number) => `${(performance.now() - start).toFixed(0)} ms`

try {
  let start = performance.now()
  if (!kept || !existsSync(file)) {
    const devnet = await createDevnet(options)
    const [a, b, c] = devnet.accounts
    const transfer = encodeFunctionData({
      abi: parseAbi(['function transfer(address,uint256) returns (bool)']),
      functionName: 'transfer',
      args: [c!.address, 1n],
    })
    start = performance.now()
    let txs = 0
    for (let done = 0; mine && done < blocks; done += 100) {
      await devnet.request({ method: 'eth_sendTransaction', params: [{ from: a!.address, to: b!.address, value: '0x1' }] })
      await devnet.request({ method: 'anvil_mine', params: [`0x${Math.min(100, blocks - done).toString(16)}`] })
      txs++
    }
    for (let n = 1; !mine && n <= blocks; n++) {
      if (n % 10 === 0) {
        const send = (params: SendRequest) => devnet.request({ method: 'eth_sendTransaction', params: [params] })
        await send({ from: a!.address, to: b!.address, value: '0x1' })
        await send({ from: b!.address, to: c!.address, value: '0x2' })
        await send({ from: c!.address, to: devnet.token.address, data: transfer })
        txs += 3
      }
      await devnet.seal()
    }
    console.log(`built ${blocks} blocks (${txs} transactions) in ${ms(start)}`)

    // Several dumps (the same chain gives the same bytes: checked), median wall and CPU time.
    const dumpTimes: number[] = []
    const dumpCpu: number[] = []
    let first: Buffer | undefined
    for (let i = 0; i < dumps; i++) {
      start = performance.now()
      const used = process.cpuUsage()
      await devnet.node.dumpFixtureToFile(file)
      const { user, system } = process.cpuUsage(used)
      dumpTimes.push(performance.now() - start)
      dumpCpu.push((user + system) / 1000)
      const bytes = readFileSync(file)
      if (first && !first.equals(bytes)) throw new Error('two dumps of the same chain differ')
      first = bytes
    }
    console.log(`dump:  p50 ${median(dumpTimes)} ms (${list(dumpTimes)} ms)`)
    console.log(`       CPU p50 ${median(dumpCpu)} ms (${list(dumpCpu)} ms)`)
    await devnet.close()
  }
  console.log(`size:  ${(statSync(file).size / 1e6).toFixed(1)} MB`)

  const times: number[] = []
  const cpu: number[] = []
  for (let i = 0; i < 5; i++) {
    const target = await createDevnet(options)
    start = performance.now()
    const used = process.cpuUsage()
    const { fixture } = await readFixtureFile(file)
    await target.node.loadFixture(fixture)
    const { user, system } = process.cpuUsage(used)
    times.push(performance.now() - start)
    cpu.push((user + system) / 1000)
    await target.close()
  }
  console.log(`load:  p50 ${median(times)} ms (${list(times)} ms)`)
  console.log(`       CPU p50 ${median(cpu)} ms (${list(cpu)} ms)`)

  const target = await createDevnet(options)
  start = performance.now()
  await target.node.loadFixture((await readFixtureFile(file)).fixture, { verifyState: true })
  console.log(`load with verifyState (every node rehashed, every state walked): ${ms(start)}`)
  await target.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}

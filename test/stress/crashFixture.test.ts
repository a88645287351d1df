import { type ChildProcess, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RLP } from '@ethereumjs/rlp'
import { hexToBytes, keccak256, toHex } from 'viem'
import { afterAll, describe, expect, test } from 'vitest'
import { readFixtureFile } from '../../src/node/fixture/file.js'
import { seededRandom } from '../evm/generators.js'

/**
 * kill -9 while a large fixture is written (issue 15): by devnet_dumpFixture
 * with a path, and by `devnet start --dump-fixture` on SIGTERM. Whenever the
 * kill lands, the target holds its previous content whole (or does not exist
 * yet), never a cut one, and the temporary files of killed writers do not
 * pile up: the next write removes them. The kill points are seeded; half of
 * them wait for the temporary file to appear, so they land mid-write.
 */

const seed = Number(process.env.DEVNET_CRASH_SEED ?? 15)
const bin = fileURLToPath(new URL('../../bin/devnet.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'devnet-crash-fixture-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Child = { child: ChildProcess; url: string; exited: Promise<number | null>; rpc: (method: string, params?: unknown[]) => Promise<any> }

async function startCli(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, [bin, 'start', '--port', '0', '--mining', 'manual', '--clock', 'virtual', '--quiet', '--allow-fs', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)
      if (match) {
        child.stdout!.off('data', onData)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', onData)
    exited.then(() => reject(new Error(`devnet exited early: ${stderr}`)))
  })
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const reply = (await response.json()) as { result?: unknown; error?: { message: string } }
    if (reply.error) throw new Error(reply.error.message)
    return reply.result
  }
  return { child, url, exited, rpc }
}

/**
 * Distinct contract code on `count` accounts: a state of `count` × `size`
 * bytes that every dump writes out. The bytes are hashes (a fixture is
 * compressed: a repeated word would shrink to nothing).
 */
async function grow(rpc: Child['rpc'], count: number, size: number, salt: string) {
  for (let i = 0; i < count; i++) {
    let code = ''
    for (let j = 0; code.length < size * 2; j++) code += createHash('sha256').update(`${salt} ${i} ${j}`).digest('hex')
    await rpc('anvil_setCode', [toHex(i + 1, { size: 20 }).replace('0x00', '0xc0'), `0x${code.slice(0, size * 2)}`])
  }
  await rpc('devnet_seal')
}

/** Temporary files of writes to `name` (any naming: hidden or not). */
const temporaries = (name: string) =>
  readdirSync(dir).filter((f) => (f.startsWith(`.${name}.`) || f.startsWith(`${name}.`)) && f.endsWith('.tmp'))

/** Waits until a temporary file of `name` exists and holds some bytes (the write has begun), or `ms` passed. */
async function writeStarted(name: string, ms: number) {
  const until = Date.now() + ms
  while (Date.now() < until) {
    for (const f of temporaries(name)) {
      try {
        if (statSync(join(dir, f)).size > 0) return true
      } catch {}
    }
    await new Promise((resolve) => setImmediate(resolve))
  }
  return false
}

/** The target as a fixture, fully parsed and checked (throws on a cut file); undefined when absent. */
async function validate(path: string) {
  if (!existsSync(path)) return undefined
  const { fixture } = await readFixtureFile(path)
  expect(fixture.blocks).toHaveLength(Number(BigInt(fixture.head.number)) + 1)
  // Version 2 holds no block hashes: the last header's keccak.
  const last = fixture.blocks.at(-1)!
  const header = (RLP.decode(typeof last.rlp === 'string' ? hexToBytes(last.rlp) : last.rlp) as Uint8Array[][])[0]!
  expect(keccak256(RLP.encode(header))).toBe(fixture.head.hash)
  return fixture.head.hash
}

/**
 * Rounds of: start from the large fixture, seal a block (so the next dump
 * differs from the file on disk), start a write, kill -9 at the round's
 * point, then check the target. Returns the figures.
 */
async function killRounds(opts: {
  name: string
  rounds: number
  base: string
  /** Starts the write in the child (an RPC call, or SIGTERM for --dump-fixture). */
  write: (c: Child, target: string) => void
  extraArgs?: (target: string) => string[]
}) {
  const next = seededRandom(seed + opts.name.length).next
  const target = join(dir, opts.name)
  const heads = new Set<string>()
  let midWrite = 0
  let wholeWrites = 0
  for (let round = 0; round < opts.rounds; round++) {
    const before = await validate(target)
    const c = await startCli(['--fixture', opts.base, ...(opts.extraArgs?.(target) ?? [])])
    await c.rpc('devnet_seal')
    const headHash = ((await c.rpc('eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash
    heads.add(headHash)
    opts.write(c, target)
    // Even rounds: kill as soon as the temporary file has bytes; odd rounds: a random delay up to 1.5 s.
    if (round % 2 === 0) {
      if (await writeStarted(opts.name, 5_000)) midWrite++
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 10)))
    } else await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 1500)))
    const tmpAtKill = temporaries(opts.name).length
    c.child.kill('SIGKILL')
    await c.exited
    const after = await validate(target)
    // Whole: the old file, or the new one when the rename came first; never anything else.
    expect([before, headHash]).toContain(after)
    if (after === headHash && after !== before) wholeWrites++
    if (tmpAtKill > 0 && round % 2 === 1) midWrite++
  }
  const leftover = temporaries(opts.name).length
  return { midWrite, wholeWrites, leftover, target }
}

describe('crash safety: fixture writes under kill -9', () => {
  let base: string
  let baseBytes: number

  test('setup: a large chain written whole', async () => {
    base = join(dir, 'base.json')
    const c = await startCli([])
    try {
      await grow(c.rpc, 120, 80_000, `seed ${seed}`)
      const written = (await c.rpc('devnet_dumpFixture', [base])) as { bytes: number }
      baseBytes = written.bytes
      expect(baseBytes).toBeGreaterThan(10_000_000)
    } finally {
      c.child.kill('SIGKILL')
      await c.exited
    }
    expect(await validate(base)).toMatch(/^0x/)
  }, 120_000)

  test('devnet_dumpFixture(path): killed at seeded points, the file is old or new, whole', async () => {
    const { midWrite, leftover, target } = await killRounds({
      name: 'rpc.json',
      rounds: 4,
      base,
      write: (c, target) => void c.rpc('devnet_dumpFixture', [target]).catch(() => {}),
    })
    console.log(`devnet_dumpFixture: 4 kills (seed ${seed}), ${midWrite} mid-write, ${baseBytes} bytes, ${leftover} temporary files left`)
    expect(midWrite).toBeGreaterThanOrEqual(1)
    // A whole write afterwards removes the killed writers' temporary files.
    const c = await startCli(['--fixture', base])
    await c.rpc('devnet_dumpFixture', [target])
    c.child.kill('SIGKILL')
    await c.exited
    expect(await validate(target)).toMatch(/^0x/)
    expect(temporaries('rpc.json')).toEqual([])
  }, 120_000)

  test('start --dump-fixture: killed while writing on SIGTERM, the file is old or new, whole', async () => {
    const { midWrite, target } = await killRounds({
      name: 'exit.json',
      rounds: 4,
      base,
      extraArgs: (target) => ['--dump-fixture', target],
      write: (c) => c.child.kill('SIGTERM'),
    })
    console.log(`--dump-fixture: 4 kills (seed ${seed}), ${midWrite} mid-write`)
    expect(midWrite).toBeGreaterThanOrEqual(1)
    const c = await startCli(['--fixture', base, '--dump-fixture', target])
    c.child.kill('SIGTERM')
    expect(await c.exited).toBe(0)
    expect(await validate(target)).toMatch(/^0x/)
    expect(temporaries('exit.json')).toEqual([])
  }, 120_000)
})

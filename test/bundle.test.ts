import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// The CLI bundle that `npm run build` / `prepare` write to dist/bundle/ and bin/devnet.js runs, built here into a
// directory of its own inside the package (node_modules must be found from it; `.devnet-*/` is git-ignored).
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = join(root, `.devnet-bundle-test-${process.pid}`)
const outdir = join(dir, 'bundle')
const cli = join(outdir, 'cli.js')

function start(args: string[]) {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) resolve(match[1]!)
    })
    exited.then(() => reject(new Error(`exited early: ${err}`)))
  })
  return { child, exited, listening, out: () => out, err: () => err }
}

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
}

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs'), '--outdir', outdir], { stdio: 'pipe' })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('CLI bundle', () => {
  test('starts with the same banner, answers, mines in auto mode and exits 0 on SIGTERM', async () => {
    const p = start(['start', '--port', '0', '--mining', 'auto'])
    const url = await p.listening
    expect(p.out()).toContain('Chain ID:        31337')
    expect(p.out()).toContain('(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)')
    expect(p.out()).toContain('Token:           USD Coin (USDC) at 0x3009300930093009300930093009300930093009')
    expect(await rpc(url, 'eth_chainId')).toMatchObject({ result: '0x7a69' })
    // A signed transfer runs the EVM (and the native signature recovery) inside the bundle and seals a block.
    const sent = await rpc(url, 'eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '0x1' }])
    expect(sent.error).toBeUndefined()
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [sent.result])
    expect(receipt.result).toMatchObject({ status: '0x1', blockNumber: '0x1' })
    // The token's balanceOf: the interpreter the speedups patch is the one the bundled EVM runs.
    const balanceOf = `0x70a08231${'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266'.toLowerCase().padStart(64, '0')}`
    const balance = await rpc(url, 'eth_call', [{ to: '0x3009300930093009300930093009300930093009', data: balanceOf }, 'latest'])
    expect(BigInt(balance.result as string)).toBeGreaterThan(0n)
    p.child.kill('SIGTERM')
    expect(await p.exited).toBe(0)
    expect(p.err()).toBe('')
  })

  test('--version reads package.json from the bundle', () => {
    const version = execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8' }).trim()
    expect(version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version)
  })

  test('has no import resolved at run time for code it should carry, and leaves the native and lazy packages out', () => {
    const code = readdirSync(outdir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(outdir, f), 'utf8'))
      .join('\n')
    // src/evm/speedups.ts's `import.meta.resolve('@ethereumjs/evm')` must have become the bundled interpreter.
    expect(code).not.toContain('import.meta.resolve')
    expect(code).not.toMatch(/from ["']solc["']|require\d*\(["']solc["']\)/)
    expect(code).toMatch(/require\d*\(["']micro-eth-signer\/kzg\.js["']\)/)
    expect(code).toMatch(/import\(["']ws["']\)/)
  })
})

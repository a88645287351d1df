import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { tempDir } from './tempDir.js'

const bin = fileURLToPath(new URL('../bin/devnet.js', import.meta.url))

function run(args: string[], cwd?: string, env?: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd, env: env && { ...process.env, ...env } })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, out: () => out, err: () => err }
}

describe('devnet start', () => {
  test('default: prints accounts and the listening line, answers, exits 0 on SIGINT', async () => {
    const p = run(['start', '--port', '0', '--mining', 'manual'])
    const url = await listening(p)
    expect(p.out()).toContain('Chain ID:        31337')
    expect(p.out()).toContain('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(p.out()).toContain('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }), headers: { 'content-type': 'application/json' } })
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(p.out()).toContain(`Live page:       ${url}/`)
    const page = await fetch(url, { headers: { accept: 'text/html' } })
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    p.child.kill('SIGINT')
    expect(await p.exited).toBe(0)
  })

  // The suite runs the built bundle when dist/ is fresh (vitest.config.ts): the source, as a checkout without dist/
  // runs it, is started here, with the live page it builds on the first GET /.
  test('from source (DEVNET_FROM_SOURCE=1): answers and serves the live page', async () => {
    const p = run(['start', '--port', '0', '--mining', 'manual'], undefined, { DEVNET_FROM_SOURCE: '1' })
    const url = await listening(p)
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }), headers: { 'content-type': 'application/json' } })
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect((await fetch(url, { headers: { accept: 'text/html' } })).status).toBe(200)
    expect((await fetch(`${url}/ui/app.js`)).status).toBe(200)
    p.child.kill('SIGINT')
    expect(await p.exited).toBe(0)
    expect(p.err()).toBe('')
  })

  test('args: --no-ui serves JSON-RPC only', async () => {
    const p = run(['start', '--port', '0', '--mining', 'manual', '--no-ui'])
    const url = await listening(p)
    expect(p.out()).not.toContain('Live page')
    const response = await fetch(url, { headers: { accept: 'text/html' } })
    expect(await response.json()).toEqual({ name: 'devnet', jsonrpc: 'POST / with a JSON-RPC 2.0 body' })
    expect((await fetch(`${url}/ui/app.js`)).status).toBe(404)
    p.child.kill('SIGINT')
    expect(await p.exited).toBe(0)
  })

  test('error: a bad flag gives one line naming it and exit code 2', async () => {
    const p = run(['start', '--bogus'])
    expect(await p.exited).toBe(2)
    expect(p.err()).toMatch(/--bogus/)
    const q = run(['start', '--mining', 'sometimes', '--port', '0'])
    expect(await q.exited).toBe(2)
    expect(q.err()).toMatch(/mining/)
  })
})

/** Resolves with the URL once the CLI prints its listening line. */
function listening(p: ReturnType<typeof run>) {
  return new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())
      if (match) {
        clearInterval(timer)
        resolve(match[1]!)
      }
    }, 20)
    p.exited.then(() => {
      clearInterval(timer)
      reject(new Error(`exited early: ${p.err()}`))
    })
  })
}

const rpc = async (url: string, method: string) =>
  ((await (await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }), headers: { 'content-type': 'application/json' } })).json()) as { result: unknown }).result

/** A folder holding a devnet.config.json that restates the defaults, as a user's might. */
function projectFolder() {
  const dir = tempDir('devnet-cli-')
  writeFileSync(join(dir, 'devnet.config.json'), JSON.stringify({ chainId: 31337, mining: { type: 'interval', blockTime: 2000, preconfInterval: 200 }, clock: 'wall' }))
  // A post-merge geth genesis with no accounts: enough to start an imported chain.
  const forks = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london']
  const config = { chainId: 1337, ...Object.fromEntries(forks.map((f) => [`${f}Block`, 0])), terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0 }
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify({ config, alloc: {}, gasLimit: '0x1c9c380', baseFeePerGas: '0x3b9aca00' }))
  writeFileSync(join(dir, 'bad.rlp'), Uint8Array.from([0xc3, 0x01, 0x02, 0x03]))
  return dir
}

describe('devnet start: precedence', () => {
  const dir = projectFolder()

  test.concurrent('flags beat the config file key by key; a preset beats its chain id, with one warning line', async () => {
    const p = run(['start', '--port', '0', '--block-time', '1000', '--preconf-interval', '100', '--preset', 'base-sepolia'], dir)
    try {
      const url = await listening(p)
      expect(p.out()).toContain('Mining:          interval (block time 1000 ms, pre-confirmation every 100 ms)')
      expect(await rpc(url, 'eth_chainId')).toBe('0x14a34')
      expect(p.err().trim().split('\n')).toEqual([expect.stringMatching(/^devnet: warning: --preset base-sepolia contradicts chainId 31337 in devnet\.config\.json \(84532 used\)$/)])
    } finally {
      // A failed expectation must not leave the devnet running.
      p.child.kill('SIGINT')
    }
    expect(await p.exited).toBe(0)
  })
})

describe('devnet start: user errors', () => {
  const dir = projectFolder()
  const oneLine = async (args: string[]) => {
    const p = run(['start', '--port', '0', ...args], dir)
    const code = await p.exited
    return { code, lines: p.err().trim().split('\n') }
  }

  test.concurrent('a chain that fails to import: one line naming the file and the block, exit 2', async () => {
    const { code, lines } = await oneLine(['--genesis', 'genesis.json', '--import', 'bad.rlp'])
    expect(code).toBe(2)
    expect(lines).toEqual([expect.stringMatching(/^devnet: import bad\.rlp: block 1 \(item 0 of the RLP stream\): cannot decode: /)])
  })

  test.concurrent('--debug adds the stack trace', async () => {
    const { code, lines } = await oneLine(['--genesis', 'genesis.json', '--import', 'bad.rlp', '--debug'])
    expect(code).toBe(2)
    expect(lines[0]).toMatch(/^devnet: import bad\.rlp: block 1/)
    expect(lines.some((l) => /^\s+at /.test(l))).toBe(true)
  })
})

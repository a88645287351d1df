import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { codeCacheFile, scriptHead } from '../bin/codeCache.js'
import { startDevnet } from '../src/index.js'

// The CLI bundle that `npm run build` / `prepare` write to dist/bundle/ (with its V8 code cache) and bin/devnet.js runs
// through bin/codeCache.js, built here into a directory of its own inside the package (node_modules and package.json
// must be found from it, two levels down like dist/bundle/; `.devnet-*/` is git-ignored).
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = join(root, `.devnet-bundle-test-${process.pid}`)
const outdir = join(dir, 'bundle')
const cli = join(outdir, 'cli.cjs')
const launcher = join(outdir, 'run.mjs')
// The same, reporting which packages of node_modules are loaded when the socket starts listening and at exit, and at
// listening whether node:http is loaded and the CLI bundle (cli.cjs) was read.
const watched = join(outdir, 'run-watched.mjs')

function start(args: string[], script = launcher) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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

/** Whether V8 takes `cachedData` for the bundle, compiled the way bin/codeCache.js compiles it: its text as read, its own wrapper. */
const accepted = (cachedData: Buffer) => {
  const text = readFileSync(cli, 'latin1')
  expect(text.startsWith(scriptHead)).toBe(true)
  return !new vm.Script(text, { filename: cli, cachedData }).cachedDataRejected
}

/** What the build printed (stdout and stderr). */
let buildOutput = ''

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs'), '--outdir', outdir], { encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`scripts/bundle.mjs exited with ${build.status}: ${build.stderr}`)
  buildOutput = build.stdout + build.stderr
  // As bin/devnet.js runs them: front.cjs, which listens, then cli.cjs behind it.
  writeFileSync(launcher, `import { runCliBundles } from ${JSON.stringify(join(root, 'bin', 'codeCache.js'))}\nrunCliBundles(${JSON.stringify(outdir)}, process.argv.slice(2))\n`)
  writeFileSync(
    watched,
    [
      "import fs from 'node:fs'",
      "import net from 'node:net'",
      "import Module from 'node:module'",
      // bin/codeCache.js, imported below, takes node:fs's readFileSync and readFile when it loads: these.
      'const reads = []',
      'const readFileSync = fs.readFileSync',
      'fs.readFileSync = function (file, ...rest) { reads.push(String(file)); return readFileSync.call(this, file, ...rest) }',
      // The front reads the CLI bundle with readFile (off the main thread): that one too.
      'const readFile = fs.readFile',
      'fs.readFile = function (file, ...rest) { reads.push(String(file)); return readFile.call(this, file, ...rest) }',
      "const front = () => JSON.stringify({ http: process.moduleLoadList.includes('NativeModule http'), cli: reads.some((f) => f.endsWith('cli.cjs')) })",
      'const packages = () => [...new Set(Object.keys(Module._cache).map((f) => /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(f)?.[1]).filter(Boolean))]',
      // net.Server: the HTTP server's socket is a plain net.Server that hands connections to node:http (src/server/fastHttp.ts).
      'const listen = net.Server.prototype.listen',
      "net.Server.prototype.listen = function (...args) { this.once('listening', () => console.error('at listen: ' + JSON.stringify(packages()) + '\\nfront at listen: ' + front())); return listen.apply(this, args) }",
      "process.on('exit', () => console.error('at exit: ' + JSON.stringify(packages())))",
      `import(${JSON.stringify(pathToFileURL(launcher).href)})`,
    ].join('\n'),
  )
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
    // The token's balanceOf runs the interpreter that src/evm/speedups.ts patched inside the bundle.
    const balanceOf = `0x70a08231${'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266'.toLowerCase().padStart(64, '0')}`
    const balance = await rpc(url, 'eth_call', [{ to: '0x3009300930093009300930093009300930093009', data: balanceOf }, 'latest'])
    expect(BigInt(balance.result as string)).toBeGreaterThan(0n)
    p.child.kill('SIGTERM')
    expect(await p.exited).toBe(0)
    expect(p.err()).toBe('')
  })

  test("the build's code-cache run answers every request of its workload before saving the caches", () => {
    // scripts/codeCacheWorkload.mjs checks each answer: a method whose params or answer changed stops it with a
    // warning, and the caches would silently lose the functions of every request after it.
    expect(buildOutput).not.toMatch(/workload failed|no V8 code cache/)
    expect(buildOutput).toMatch(/code-cache workload, \d+ requests/)
  })

  test('the build leaves V8 code cache the bundle accepts; with a damaged one the bundle compiles and runs', async () => {
    const cacheFile = codeCacheFile(cli, readFileSync(cli))
    const cache = readFileSync(cacheFile)
    expect(accepted(cache)).toBe(true)
    writeFileSync(cacheFile, Buffer.alloc(cache.length, 7))
    try {
      const p = start(['start', '--port', '0', '--mining', 'manual', '--quiet'])
      expect(await rpc(await p.listening, 'eth_chainId')).toMatchObject({ result: '0x7a69' })
      p.child.kill('SIGTERM')
      expect(await p.exited).toBe(0)
      expect(p.err()).toBe('')
    } finally {
      writeFileSync(cacheFile, cache)
    }
  })

  test('listens before loading the engine: no native binding is loaded when the socket opens, and eth_chainId answers', async () => {
    const p = start(['start', '--port', '0', '--mining', 'auto', '--quiet'], watched)
    const url = await p.listening
    const sent = await rpc(url, 'eth_sendTransaction', [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '0x1' }])
    expect(sent.error).toBeUndefined()
    p.child.kill('SIGTERM')
    expect(await p.exited).toBe(0)
    const loaded = (when: string) => JSON.parse(new RegExp(`^${when}: (.*)$`, 'm').exec(p.err())![1]!) as string[]
    // The secp256k1 binding comes with the engine, which the bundle evaluates after the socket listens
    // (src/index.ts loadInSteps); by exit, having signed and run a transaction, it is loaded.
    expect(loaded('at listen')).not.toContain('secp256k1')
    expect(loaded('at exit')).toContain('secp256k1')
    // hash-wasm's keccak is inside the bundle (src/evm/keccak.ts imports it): never loaded from node_modules.
    expect(loaded('at exit')).not.toContain('hash-wasm')
    // The native keccak is only the fallback for a hash asked before the WebAssembly one is ready, which the node
    // awaits before it builds anything (src/evm/keccak.ts): a start and a transaction never load it.
    expect(loaded('at exit')).not.toContain('keccak')
    // The socket is bound by the front (front.cjs) before the CLI bundle and its code cache are read, and before
    // node:http loads (src/cli/front.ts, src/server/http.ts listen).
    expect(JSON.parse(/^front at listen: (.*)$/m.exec(p.err())![1]!)).toEqual({ http: false, cli: false })
  })

  test('a fork starts in the front too: its first reads go out and the socket binds before cli.cjs is read; the CLI takes them over', async () => {
    const remote = await startDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    // Between the fork and its upstream: the JSON-RPC methods of each HTTP request, in order.
    const requests: string[][] = []
    const proxy = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', async () => {
        const parsed = JSON.parse(body) as { method: string } | { method: string }[]
        requests.push((Array.isArray(parsed) ? parsed : [parsed]).map((r) => r.method))
        res.writeHead(200, { 'content-type': 'application/json' }).end(await remote.requestRaw(parsed as never).then(JSON.stringify))
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const cacheDir = mkdtempSync(join(tmpdir(), 'devnet-bundle-fork-'))
    try {
      const upstream = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
      const p = start(['start', '--port', '0', '--mining', 'auto', '--quiet', '--no-ui', '--fork-url', upstream, '--fork-cache', cacheDir], watched)
      const url = await p.listening
      expect(JSON.parse(/^front at listen: (.*)$/m.exec(p.err())![1]!)).toEqual({ http: false, cli: false })
      expect(await rpc(url, 'eth_chainId')).toMatchObject({ result: '0x7a69' })
      // The upstream's token balance, read through the CLI's upstream client over the front's transport.
      const holder = remote.accounts[0]!.address
      const balanceOf = `0x70a08231${holder.slice(2).toLowerCase().padStart(64, '0')}` as const
      const atRemote = await remote.request({ method: 'eth_call', params: [{ to: remote.token.address, data: balanceOf }, 'latest'] })
      expect(await rpc(url, 'eth_call', [{ to: remote.token.address, data: balanceOf }, 'latest'])).toMatchObject({ result: atRemote })
      // The front's batch was the CLI's first attempt: sent once, not again.
      expect(requests[0]).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
      expect(requests.flat().filter((m) => m === 'eth_chainId')).toHaveLength(1)
      p.child.kill('SIGTERM')
      expect(await p.exited).toBe(0)
      expect(p.err()).toMatch(/^devnet: forking, reading the upstream chain\.\.\.$/m)
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
      await remote.close()
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('a fork whose upstream cannot be reached fails in one line, exit 2, after the front listened', async () => {
    // A port that refuses: the front's first reads fail, and the CLI's client retries them and names the upstream.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const upstream = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    await new Promise((resolve) => closed.close(resolve))
    const cacheDir = mkdtempSync(join(tmpdir(), 'devnet-bundle-fork-'))
    try {
      const p = start(['start', '--port', '0', '--quiet', '--fork-url', upstream, '--fork-block', '3', '--fork-cache', cacheDir], watched)
      p.listening.catch(() => {})
      expect(await p.exited).toBe(2)
      const lines = p.err().trim().split('\n').filter((line) => line.startsWith('devnet:'))
      expect(lines).toEqual([
        'devnet: forking, reading the upstream chain...',
        expect.stringMatching(new RegExp(`^devnet: fork upstream ${upstream} failed a batch of 2 \\(eth_chainId, eth_getBlockByNumber\\): connect ECONNREFUSED .* \\(after 5 attempts\\)$`)),
      ])
      expect(JSON.parse(/^front at listen: (.*)$/m.exec(p.err())![1]!)).toEqual({ http: false, cli: false })
    } finally {
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('the front leaves what it does not listen for to the whole CLI: warnings once, a port in use in one line, exit 2', async () => {
    // A preset beside a chain id it contradicts: the front resolves the config and listens, and the warning is
    // printed once (the CLI behind it does not resolve the config again).
    const p = start(['start', '--port', '0', '--mining', 'manual', '--quiet', '--preset', 'base-sepolia', '--chain-id', '5'])
    const url = await p.listening
    expect(await rpc(url, 'eth_chainId')).toMatchObject({ result: '0x5' })
    expect(p.err().trim().split('\n')).toEqual([expect.stringMatching(/^devnet: warning: --preset base-sepolia contradicts --chain-id 5\b/)])
    // The port is taken: the front cannot listen, and the whole CLI reports it as it would alone.
    const busy = start(['start', '--port', new URL(url).port, '--quiet'])
    busy.listening.catch(() => {})
    expect(await busy.exited).toBe(2)
    expect(busy.err().trim().split('\n')).toEqual([expect.stringMatching(/^devnet: port already in use: /)])
    p.child.kill('SIGTERM')
    expect(await p.exited).toBe(0)
  })

  test('--version reads package.json from the bundle', () => {
    const version = execFileSync(process.execPath, [launcher, '--version'], { encoding: 'utf8' }).trim()
    expect(version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version)
  })

  test('carries what it should and leaves the native and lazily loaded packages out', () => {
    const code = readFileSync(cli, 'utf8')
    // src/evm/evmInternals.ts's `import.meta.resolve('@ethereumjs/evm')` must have become the bundled files: one
    // interpreter, the one the EVM runs and the speedups patch (a second copy would leave the patches unused).
    expect(code).not.toContain('import.meta')
    expect(code.match(/\bInterpreter ?= ?class\b/g)).toHaveLength(1)
    expect(code).not.toMatch(/require\(["']solc["']\)/)
    expect(code).toMatch(/require\d*\(["']micro-eth-signer\/kzg\.js["']\)/)
    expect(code).toMatch(/require\(["']ws["']\)/)
    expect(code).toMatch(/\)\(["']secp256k1["']\)/)
    // The build patch lazy-bigint-cache (src/evm/patches/registry.ts): @ethereumjs/util's cache is filled on use,
    // by rows of 256.
    expect(code).toContain('BIGINT_CACHE=new Array(256)')
    expect(code).not.toContain('new Array(256*256)')
    expect(code).not.toMatch(/BIGINT_CACHE\[\w+\]=BigInt\(\w+\)/)
    // The build patch lazy-start-modules: runTx's default header is made at first use.
    expect(code).not.toMatch(/DEFAULT_HEADER=createBlockHeader\(\)/)
    // hash-wasm's keccak build is bundled, not required from node_modules at run time.
    expect(code).not.toMatch(/require\(["']hash-wasm/)
    expect(code).toContain('node_modules/hash-wasm/dist/keccak.umd.min.js')
  })
})

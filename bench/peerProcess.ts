/**
 * What the benchmarks that spawn devnet and Anvil side by side share: a free
 * loopback port, a bare JSON-RPC client over fetch, waiting for the first
 * answer, and a spawned node that is stopped afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Agent, createServer as createHttpServer, request as httpRequest } from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
const peersDir = process.env.PEERS_DIR ?? join(process.env.TMPDIR ?? tmpdir(), 'devnet-peers')
/** Anvil as the shared harness installs it (bash ../shared/bench/setup.sh). */
export const anvilBin = join(peersDir, 'node_modules', '.bin', 'anvil')

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 })

/** POSTs `body` over a keep-alive connection (up to 64 at once): the load loops' client, lighter than fetch. */
export function post(url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: '/', method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (data += c))
        res.on('end', () => resolve(data))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Polls `url` with eth_chainId every `everyMs` until it answers (30 s at most). */
export async function waitUp(url: string, everyMs = 50) {
  for (let i = 0; i < 30_000 / everyMs; i++) {
    try {
      await rpc(url, 'eth_chainId')
      return
    } catch {
      await new Promise((r) => setTimeout(r, everyMs))
    }
  }
  throw new Error(`${url} did not start`)
}

export const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

export const timed = async (fn: () => Promise<unknown>) => {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/** The command lines of the two nodes these benchmarks compare (a `--port` is appended). */
export const devnetCommand = (...flags: string[]) => ({
  command: process.execPath,
  args: [join(root, 'bin', 'devnet.js'), 'start', '--quiet', ...flags],
})
export const anvilCommand = (...flags: string[]) => ({ command: anvilBin, args: ['--host', '127.0.0.1', '--silent', ...flags] })

/** Spawns a node on a free port, waits for its first answer, runs `use(url)`, then stops it. */
export async function withNode<T>(node: { command: string; args: string[] }, use: (url: string) => Promise<T>): Promise<T> {
  const port = await freePort()
  const child: ChildProcess = spawn(node.command, [...node.args, '--port', String(port)], { stdio: 'ignore', cwd: root })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitUp(url)
    return await use(url)
  } finally {
    child.kill('SIGTERM')
  }
}

/** The CLI entry under `src`: main.ts in a checkout, main.js in compiled output (plain tsc output keeps line numbers in profiles). */
const cliEntryOf = (src: string) => (existsSync(join(src, 'cli', 'main.ts')) ? join(src, 'cli', 'main.ts') : join(src, 'cli', 'main.js'))

/**
 * `devnet start --mining auto` from source (tsx) in a child process, for the
 * per-path profilers (bench/txpath.ts, bench/readpath.ts): `src` another
 * checkout's src/ for A/B runs, `prof` a folder for its V8 CPU profile.
 * Resolves once it listens; `stop` ends it with SIGINT (which writes the profile).
 */
export async function startSourceDevnet(options: { src?: string | undefined; prof?: string | undefined } = {}) {
  const args = [
    ...(options.prof ? ['--cpu-prof', '--cpu-prof-dir', options.prof] : []),
    '--import', 'tsx', cliEntryOf(options.src ?? join(root, 'src')), 'start', '--port', '0', '--mining', 'auto', '--quiet',
  ]
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /Listening on (\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.on('exit', (code) => reject(new Error(`devnet exited with ${code}`)))
  })
  return {
    url: new URL(url),
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve())
        child.kill('SIGINT')
      }),
  }
}

/** A proxy in front of the upstream that counts the HTTP requests it forwards. */
export async function countingProxy(target: string) {
  /** The requests since the last take(): when each came in and when its reply went out (performance.now()). */
  const calls: { in: number; out: number }[] = []
  const server = createHttpServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', async () => {
      const call = { in: performance.now(), out: 0 }
      calls.push(call)
      try {
        const reply = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(await reply.text())
      } catch {
        // The upstream closed under a node still reading (the bench stops them in turn).
        res.writeHead(502).end()
      }
      call.out = performance.now()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    /** How many requests came since the last take(). */
    take: () => calls.splice(0).length,
    close: () => new Promise((r) => server.close(r)),
  }
}

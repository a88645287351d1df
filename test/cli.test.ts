import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const bin = fileURLToPath(new URL('../bin/devnet.js', import.meta.url))

function run(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())
        if (match) {
          clearInterval(timer)
          resolve(match[1]!)
        }
      }, 20)
      p.exited.then(() => reject(new Error(`exited early: ${p.err()}`)))
    })
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

  test('args: --no-ui serves JSON-RPC only', async () => {
    const p = run(['start', '--port', '0', '--mining', 'manual', '--no-ui'])
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.out())
        if (match) {
          clearInterval(timer)
          resolve(match[1]!)
        }
      }, 20)
      p.exited.then(() => reject(new Error(`exited early: ${p.err()}`)))
    })
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

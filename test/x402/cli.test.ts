import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const bin = fileURLToPath(new URL('../../bin/devnet.js', import.meta.url))

describe('devnet start --x402-facilitator', () => {
  test('default: serves /supported for the preset chain beside the node, exits 0 on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [bin, 'start', '--port', '0', '--mining', 'manual', '--quiet', '--preset', 'base-sepolia', '--x402-port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => /Listening on/.test(out) && resolve())
        exited.then(() => reject(new Error(`exited early: ${err}`)))
      })
      const url = /x402 facilitator on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]
      expect(url).toBeDefined()
      // The last of the 10 dev accounts settles.
      expect(out).toContain('settles from 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720')
      const supported = await (await fetch(`${url}/supported`)).json()
      expect(supported).toEqual({
        kinds: [
          { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
          { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
        ],
        extensions: [],
        signers: { 'eip155:*': ['0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'] },
      })
      child.kill('SIGINT')
      expect(await exited).toBe(0)
    } finally {
      // A failed assertion must not leave the devnet running.
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})

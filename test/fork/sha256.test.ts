import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { beginFirstReads } from '../../src/node/fork/firstReads.js'
import { sha256Hex } from '../../src/node/fork/sha256.js'

const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex')

test('sha256Hex is node:crypto SHA-256 of the UTF-8 bytes, across the padding boundaries and multi-byte characters', () => {
  expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  // 55, 56, 63, 64 and 65 bytes: where the length moves into another block.
  for (let n = 0; n < 200; n++)
    for (const unit of ['a', 'é', '😀']) {
      const text = unit.repeat(n)
      expect(sha256Hex(text), `${n} × ${unit}`).toBe(nodeSha256(text))
    }
  const url = 'https://eth-mainnet.example/v2/0123456789abcdef?key=ünïcode'
  expect(sha256Hex(url)).toBe(nodeSha256(url))
})

test("a fork's first reads find the chain id in the URL's cache file named by node:crypto's hash (caches written before)", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'devnet-sha-'))
  try {
    const url = 'http://127.0.0.1:1/never-asked'
    mkdirSync(join(cacheDir, 'urls'))
    writeFileSync(join(cacheDir, 'urls', `${nodeSha256(url).slice(0, 32)}.json`), JSON.stringify({ chainId: '0x2a' }))
    const first = beginFirstReads({ url, blockNumber: 7n, cacheDir, chainId: undefined, offline: true })
    first.transport.close()
    expect(first.known).toBe(42n)
  } finally {
    rmSync(cacheDir, { recursive: true, force: true })
  }
})

import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { beginFirstReads } from '../../src/node/fork/firstReads.js'

const nodeSha256 = (text: string) => createHash('sha256').update(text).digest('hex')

test("a fork's first reads find the chain id in the URL's cache file named by node:crypto's hash (caches written before)", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'devnet-sha-'))
  try {
    mkdirSync(join(cacheDir, 'urls'))
    // Short, past one 64-byte block, and with multi-byte characters (hashed as UTF-8).
    const urls = ['http://127.0.0.1:1/never-asked', `http://127.0.0.1:1/${'k'.repeat(90)}`, 'https://eth.example/v2/0123456789abcdef?key=\u00fcn\u00efcode\u{1f600}']
    urls.forEach((url, i) => {
      writeFileSync(join(cacheDir, 'urls', `${nodeSha256(url).slice(0, 32)}.json`), JSON.stringify({ chainId: `0x${(42 + i).toString(16)}` }))
      const first = beginFirstReads({ url, blockNumber: 7n, cacheDir, chainId: undefined, offline: true })
      first.transport.close()
      expect(first.known, url).toBe(BigInt(42 + i))
    })
  } finally {
    rmSync(cacheDir, { recursive: true, force: true })
  }
})

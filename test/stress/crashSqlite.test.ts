import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { createSqliteStore } from '../../src/payments/sqlite.js'
import { seededRandom } from '../evm/generators.js'

/**
 * kill -9 while the payments SQLite store writes (issue 15): a child inserts
 * records, moves some to voided and stores indexer rows, printing each write
 * once it has committed; it is killed at seeded random points, again and
 * again on the same file. Every write it printed must be there afterwards,
 * and the database must pass `PRAGMA integrity_check`.
 */

const seed = Number(process.env.DEVNET_CRASH_SEED ?? 15)
const writer = fileURLToPath(new URL('./children/sqliteWriter.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'devnet-crash-sqlite-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the writer from order `start`, kills it `ms` after it is ready; returns the lines it printed. */
async function runAndKill(path: string, start: number, ms: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path, String(start)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)))
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.startsWith('ready\n')) {
        child.stdout.off('data', check)
        resolve()
      }
    }
    child.stdout.on('data', check)
    exited.then(() => reject(new Error(`writer exited early: ${err}`)))
  })
  await new Promise((resolve) => setTimeout(resolve, ms))
  child.kill('SIGKILL')
  expect(await exited).toBe('SIGKILL')
  // Only whole lines: a line cut by the kill was never fully printed.
  return out.split('\n').slice(1, -1)
}

describe('crash safety: payments SQLite store under kill -9', () => {
  test('behavior: every committed write survives; integrity_check ok', async () => {
    const path = join(dir, 'payments.sqlite')
    const next = seededRandom(seed).next
    const inserted = new Set<string>()
    const voided = new Set<string>()
    const logs = new Set<number>()
    let start = 0
    const rounds = 6
    for (let round = 0; round < rounds; round++) {
      const lines = await runAndKill(path, start, 20 + Math.floor(next() * 400))
      for (const line of lines) {
        const [kind, id] = line.split(' ') as [string, string]
        if (kind === 'I') inserted.add(id)
        else if (kind === 'T') voided.add(id)
        else if (kind === 'L') logs.add(Number(id))
      }
      // The next run starts past anything the killed one may have written, printed or not.
      start += 1_000_000
    }
    expect(inserted.size).toBeGreaterThan(rounds)

    const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => {
      pragma(sql: string, options?: { simple: boolean }): unknown
      close(): void
    }
    const db = new BetterSqlite3(path)
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    } finally {
      db.close()
    }

    const store = createSqliteStore({ path })
    try {
      const records = new Map((await store.list()).map((r) => [r.orderId, r]))
      const missing = [...inserted].filter((id) => !records.has(id))
      expect(missing).toEqual([])
      const notVoided = [...voided].filter((id) => records.get(id)?.state !== 'voided')
      expect(notVoided).toEqual([])
      for (const n of logs) expect(await store.logsBetween(BigInt(n), BigInt(n))).toHaveLength(10)
      console.log(
        `sqlite: ${rounds} kills (seed ${seed}), ${inserted.size} inserts, ${voided.size} transitions, ${logs.size} log batches printed and found; ${records.size} records on disk`,
      )
    } finally {
      await store.close()
    }
  }, 120_000)
})

/**
 * Runs the differential scenario under both engines, each in a child process
 * of its own (the engine patches are process-wide), and finds the first
 * entry where the transcripts differ.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Entry, Transcript } from './scenario.js'

const runner = fileURLToPath(new URL('./run.ts', import.meta.url))
const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The transcript of `seed`/`cases` under `engine`, from a child process. */
export async function transcriptOf(engine: 'devnet' | 'stock', seed: number, cases: number): Promise<Transcript> {
  const dir = mkdtempSync(join(tmpdir(), 'devnet-diff-'))
  const out = join(dir, `${engine}.json`)
  try {
    const stderr: Buffer[] = []
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', runner, String(seed), String(cases), out], {
        cwd: root,
        env: { ...process.env, DEVNET_ENGINE: engine },
        stdio: ['ignore', 'inherit', 'pipe'],
      })
      child.stderr.on('data', (d: Buffer) => stderr.push(d))
      child.on('error', reject)
      child.on('exit', resolve)
    })
    if (code !== 0) throw new Error(`the ${engine} engine's run exited with ${code}:\n${Buffer.concat(stderr).toString()}`)
    return JSON.parse(readFileSync(out, 'utf8')) as Transcript
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export type Difference = { index: number; label: string; path: string; devnet: unknown; stock: unknown; note?: string }

/** The first place where two transcripts differ, or undefined when they are the same. */
export function firstDifference(devnet: Transcript, stock: Transcript): Difference | undefined {
  const length = Math.max(devnet.entries.length, stock.entries.length)
  for (let i = 0; i < length; i++) {
    const a = devnet.entries[i]
    const b = stock.entries[i]
    const found = walk(a, b, '')
    if (found) {
      const label = a?.label ?? b?.label ?? '?'
      const difference: Difference = { index: i, label, ...found }
      if (found.path.endsWith('.stepHashes') && typeof found.devnet === 'string' && typeof found.stock === 'string') {
        let at = 0
        while (at < found.devnet.length && found.devnet[at] === found.stock[at]) at++
        difference.note = `first different struct-log step: ${Math.floor(at / 8)} (DIFF_FULL_TRACES=1 keeps the steps)`
      }
      return difference
    }
  }
  return undefined
}

function walk(a: unknown, b: unknown, path: string): { path: string; devnet: unknown; stock: unknown } | undefined {
  if (a === b) return undefined
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b))
    return { path, devnet: a, stock: b }
  // Hashes last: a block's hash differs whenever anything in it does, its roots and bloom say what.
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort((x, y) => Number(hashKey(x)) - Number(hashKey(y)))
  for (const key of keys) {
    const found = walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`)
    if (found) return found
  }
  return undefined
}

const hashKey = (key: string) => key === 'hash' || key === 'parentHash' || key === 'blockHash' || key === 'transactionHash'

/** A difference as a failure message: where, both values, and the command that replays it. */
export function describeDifference(d: Difference, seed: number, cases: number): string {
  const show = (v: unknown) => {
    const text = JSON.stringify(v)
    return text === undefined ? 'undefined' : text.length > 600 ? `${text.slice(0, 600)}…` : text
  }
  return [
    `the engines diverge at entry ${d.index} (${d.label}), ${d.path || 'the whole entry'}:`,
    `  devnet: ${show(d.devnet)}`,
    `  stock:  ${show(d.stock)}`,
    ...(d.note ? [`  ${d.note}`] : []),
    `replay: DIFF_SEED=${seed} DIFF_CASES=${cases} npx vitest run test/engine/differential.test.ts`,
  ].join('\n')
}

export type EntryOf = Entry

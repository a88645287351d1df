/*
 * How far V8 lets the old generation grow between full collections, for
 * the CLI's own process (`devnet start`).
 *
 * After each full collection V8 sets the next one's trigger at the live
 * heap times a growing factor it picks from how fast it collects, up to 4×.
 * A devnet's live heap after the bench workload is ~52 MB (chain, receipts,
 * logs index, trie slabs), but what the process held at the harness' reading
 * was 85–105 MB of old space and 5–29 MB of dead large objects (getLogs
 * responses): garbage waiting for a trigger 3–4× the live heap away. With
 * the factor at 1.7 the same reading found 35–50 MB of old space, and a full
 * collection's cost is its live heap, so a few more of them cost little
 * beside the scavenges of a transaction burst (measured in README.md,
 * "Memory: RSS after the workload").
 *
 * Only the CLI sets it: a program that embeds devnet (`startDevnet`) keeps
 * its own process' settings. `--heap-growing-percent` given to node itself
 * (or DEVNET_HEAP_GROWING_PERCENT, 0 for V8's own choice) wins.
 */
import { setFlagsFromString } from 'node:v8'

/** 1 + this / 100 is the factor: the old generation grows 70% past its live size before the next full collection. */
export const HEAP_GROWING_PERCENT = 70

/**
 * The growing percent the CLI should set, or undefined to leave V8's own:
 * `env` is the process environment, `execArgv` node's own flags.
 */
export function heapGrowingPercent(env: NodeJS.ProcessEnv, execArgv: readonly string[]): number | undefined {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (given.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return undefined
  // The build's code-cache run (scripts/bundle.mjs): V8 stamps the cache with a hash of the flags set when it is
  // made, and every start reads it before this runs, so a flag set there would have every start refuse the cache.
  if (env.DEVNET_CODE_CACHE_OUT) return undefined
  const raw = env.DEVNET_HEAP_GROWING_PERCENT
  if (raw === undefined || raw === '') return HEAP_GROWING_PERCENT
  const percent = Number(raw)
  if (!Number.isSafeInteger(percent) || percent < 0)
    throw new Error(`invalid DEVNET_HEAP_GROWING_PERCENT: ${JSON.stringify(raw)} (expected a whole number, 0 for V8's default)`)
  return percent === 0 ? undefined : percent
}

/**
 * Sets the growing percent for this process (see the file comment). V8
 * reads the flag at each full collection, so setting it after start takes
 * effect from the next one. Returns the percent set, or undefined.
 */
export function tuneHeap(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv) {
  const percent = heapGrowingPercent(env, execArgv)
  if (percent !== undefined) setFlagsFromString(`--heap-growing-percent=${percent}`)
  return percent
}

/*
 * V8's heap sizing for the CLI's own process (`devnet start`): how far the
 * old generation grows between full collections, and how large the young
 * generation gets.
 *
 * After each full collection V8 sets the next one's trigger at the live
 * heap times a growing factor it picks from how fast it collects, up to 4×.
 * A devnet's live heap after the bench workload is ~40–52 MB (chain,
 * receipts, logs index, trie slabs), but what the process held at the
 * harness' reading was 45–105 MB of old space and 5–29 MB of dead large
 * objects (getLogs responses): garbage waiting for a trigger 3–4× the live
 * heap away. With the factor at 1.7 a full collection comes sooner, and its
 * cost is the live heap, so a few more of them cost little beside the
 * scavenges of a transaction burst.
 *
 * The young generation (two semi-spaces) starts at 1 MB each and doubles
 * while many of its objects survive, up to 16 MB each: 32 MB of RSS after
 * any burst. Node 20 fixes the maximum at start (`--max-semi-space-size`),
 * but V8 reads the growth factor at each growth, so the CLI stops growth at
 * 8 MB by setting the factor to 1 there, and back to V8's 2 if V8 shrank
 * the space (it does when allocation is slow). It is checked after each
 * collection (a `gc` performance observer); a burst that doubles twice
 * before the check overshoots to V8's own maximum, no worse than without.
 * Measured in README.md, "Memory: RSS after the workload": 16–24 MB less
 * RSS after the bench workload and the same CPU per transaction.
 *
 * Only the CLI sets them: a program that embeds devnet (`startDevnet`) keeps
 * its own process' settings. A flag given to node itself wins, and
 * DEVNET_HEAP_GROWING_PERCENT / DEVNET_SEMI_SPACE_MB change the values
 * (0: V8's own choice).
 */
import { createRequire } from 'node:module'
import type * as perfHooks from 'node:perf_hooks'
import type * as v8 from 'node:v8'

/** 1 + this / 100 is the factor: the old generation grows 70% past its live size before the next full collection. */
export const HEAP_GROWING_PERCENT = 70
/** Each semi-space of the young generation stops growing at this many MB (V8's maximum: 16). */
export const SEMI_SPACE_MB = 8
/** V8's own growth factor of the young generation (`--semi-space-growth-factor`). */
const V8_SEMI_SPACE_GROWTH = 2

declare namespace heapSettings {
  type ReturnType = { growingPercent: number | undefined; semiSpaceMb: number | undefined }
}

/**
 * What the CLI should set (undefined: leave V8's own) from the process
 * environment `env` and node's own flags `execArgv`.
 */
export function heapSettings(env: NodeJS.ProcessEnv, execArgv: readonly string[]): heapSettings.ReturnType {
  // The build's code-cache run (scripts/bundle.mjs): V8 stamps the cache with a hash of the flags set when it is
  // made, and every start reads it before this runs, so a flag set there would have every start refuse the cache.
  if (env.DEVNET_CODE_CACHE_WRITE) return { growingPercent: undefined, semiSpaceMb: undefined }
  const nodeHas = (...names: string[]) => nodeGiven(env, execArgv, ...names)
  return {
    growingPercent: nodeHas('heap-growing-percent') ? undefined : setting(env, 'DEVNET_HEAP_GROWING_PERCENT', HEAP_GROWING_PERCENT),
    semiSpaceMb: nodeHas('max-semi-space-size', 'semi-space-growth-factor') ? undefined : setting(env, 'DEVNET_SEMI_SPACE_MB', SEMI_SPACE_MB),
  }
}

/** Whether node itself was given one of the V8 flags `names` (argv or NODE_OPTIONS, either spelling). */
export function nodeGiven(env: NodeJS.ProcessEnv, execArgv: readonly string[], ...names: string[]) {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
  return given.some((flag) => names.some((name) => new RegExp(`^--${name.replace(/-/g, '[-_]')}(?:=|$)`).test(flag)))
}

/** The whole number in `env[name]`, `fallback` when unset, undefined for 0; anything else is refused. */
export function setting(env: NodeJS.ProcessEnv, name: string, fallback: number) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value))
    throw new Error(`invalid ${name}: ${JSON.stringify(raw)} (expected a whole number, 0 for V8's default)`)
  return value === 0 ? undefined : value
}

/**
 * Applies `heapSettings` to this process (see the file comment) and returns
 * them. V8 reads both flags when it uses them, so setting them after start
 * takes effect from the next collection.
 */
export function tuneHeap(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv) {
  return applyHeapSettings(heapSettings(env, execArgv))
}

/**
 * Applies settings that `heapSettings` returned. The CLI reads them (and
 * refuses bad ones) before it starts, and applies them once the node is
 * served: node:v8 and node:perf_hooks are loaded here, not with the module
 * (~1 ms of a start's CPU before its first reads), and neither flag matters
 * before a start's first full collection.
 */
export function applyHeapSettings(settings: heapSettings.ReturnType) {
  const require = createRequire(import.meta.url)
  const { setFlagsFromString } = require('node:v8') as typeof v8
  if (settings.growingPercent !== undefined) setFlagsFromString(`--heap-growing-percent=${settings.growingPercent}`)
  if (settings.semiSpaceMb !== undefined) capYoungGeneration(settings.semiSpaceMb)
  return settings
}

/** Holds the young generation at `semiSpaceMb` per semi-space from the next collection on (file comment). */
function capYoungGeneration(semiSpaceMb: number) {
  const require = createRequire(import.meta.url)
  const { getHeapSpaceStatistics, setFlagsFromString } = require('node:v8') as typeof v8
  const { PerformanceObserver } = require('node:perf_hooks') as typeof perfHooks
  // new_space's space_size counts both semi-spaces.
  const cap = 2 * semiSpaceMb * 2 ** 20
  let capped = false
  const check = () => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
    const full = young !== undefined && young.space_size >= cap
    if (full === capped) return
    capped = full
    setFlagsFromString(`--semi-space-growth-factor=${full ? 1 : V8_SEMI_SPACE_GROWTH}`)
  }
  new PerformanceObserver(check).observe({ entryTypes: ['gc'] })
  check()
}

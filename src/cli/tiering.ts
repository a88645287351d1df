/*
 * When V8 optimizes the CLI's code (`devnet start`): its interrupt budget,
 * the bytecode a function runs between two checks of whether to hand it to
 * the optimizing compiler (TurboFan).
 *
 * A fresh process's first transactions run a few thousand distinct functions
 * (RPC, admission, the EVM, tries, the seal), and at V8's budget (66 KB of
 * bytecode) most of them are sent to TurboFan within the first hundred
 * transfers, many more than once (optimized on thin feedback, deoptimized,
 * optimized again). That compiling runs on V8's worker threads and was more
 * than half of the process's CPU over the fork bench's 100 transfers
 * (bench/seqTransfers.ts `FORK=1 WARMUP=0 PIPE=1`, loaded machine, 3 rounds
 * alternated: 510–650 ms at 1×, 320–390 ms at 4×, 330–360 ms at 8×; the main
 * thread's share 220–310 ms at each). With 4× the budget a function is
 * optimized once it has run four times as long, on fuller feedback: the
 * cold process spends ~40% less CPU, and a warm one the same (transfers
 * 300–600: 2.1–2.5 ms each either way), since whatever stays hot is
 * optimized all the same, a little later.
 *
 * Only the CLI sets it, after the code caches are read (V8 stamps a cache
 * with the flags in force when it was made; the build's code-cache run sets
 * none): a program that embeds devnet keeps its own process' settings. A
 * flag given to node itself wins, and DEVNET_INTERRUPT_BUDGET changes the
 * value (bytes of bytecode; 0: V8's own).
 */
import { createRequire } from 'node:module'
import type * as v8 from 'node:v8'
import { nodeGiven, setting } from './heap.js'

/** 4× V8's default (66 KB in Node 20's V8): see the file comment. */
export const INTERRUPT_BUDGET = 4 * 66 * 1024

/** The interrupt budget the CLI should set (undefined: leave V8's own), from the environment and node's own flags. */
export function tieringSettings(env: NodeJS.ProcessEnv, execArgv: readonly string[]): { interruptBudget: number | undefined } {
  if (env.DEVNET_CODE_CACHE_WRITE) return { interruptBudget: undefined }
  if (nodeGiven(env, execArgv, 'interrupt-budget')) return { interruptBudget: undefined }
  return { interruptBudget: setting(env, 'DEVNET_INTERRUPT_BUDGET', INTERRUPT_BUDGET) }
}

/**
 * Applies `tieringSettings` to this process; V8 reads the budget at each
 * check, so it holds from now on. node:v8 is loaded here, not with the
 * bundle: a start's first reads do not wait for it.
 */
export function applyTieringSettings(settings: ReturnType<typeof tieringSettings>) {
  if (settings.interruptBudget === undefined) return settings
  const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof v8
  setFlagsFromString(`--interrupt-budget=${settings.interruptBudget}`)
  return settings
}

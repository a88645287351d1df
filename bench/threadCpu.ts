/**
 * A process' CPU time from Linux's schedstat (nanoseconds; /proc/<pid>/stat counts in 10 ms ticks, too coarse for
 * one start or a few requests).
 */
import { readFileSync, readdirSync } from 'node:fs'

const runNs = (path: string) => Number(readFileSync(path, 'utf8').split(' ')[0])

/** Milliseconds all threads of `pid` have run so far (threads that ended are not counted: V8's stay). */
export function threadsCpuMs(pid: number): number {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += runNs(`/proc/${pid}/task/${tid}/schedstat`)
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e6
}

/** Milliseconds the main thread of `pid` has run: the GC and compiler helper threads vary run to run on a loaded machine. */
export const mainThreadCpuMs = (pid: number) => runNs(`/proc/${pid}/task/${pid}/schedstat`) / 1e6

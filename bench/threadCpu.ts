/**
 * A process' CPU time on Linux: from schedstat (nanoseconds), and from /proc/<pid>/stat (user + system in 10 ms
 * ticks, too coarse for one start or a few requests, fine for a hundred transactions).
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

/** Milliseconds of user + system time `pid` has used so far, from /proc/<pid>/stat (10 ms ticks). */
export function statCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Milliseconds each thread of `pid` has run so far, by thread id, with its name (`comm`). */
export function perThreadCpuMs(pid: number): Map<string, { name: string; ms: number }> {
  const threads = new Map<string, { name: string; ms: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      threads.set(tid, { name, ms: runNs(`/proc/${pid}/task/${tid}/schedstat`) / 1e6 })
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads
}

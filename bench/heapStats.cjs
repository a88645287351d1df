// Preload for a devnet under a memory A/B (`NODE_OPTIONS="--require ./bench/heapStats.cjs"`): on SIGUSR2 it
// writes V8's heap spaces (size/used, MiB), process.memoryUsage(), the GC pauses seen so far (count and main-thread
// milliseconds per kind) and the process' CPU time to $HEAP_STATS_DIR/heap-<pid>.txt (default: the temp folder).
// HEAP_STATS_FLAGS="--flag=value ..." sets V8 flags once the CLI bundle is compiled (so its code cache is still
// taken), for trying a flag without a rebuild. bench/rssSteps.sh drives it.
'use strict'
const v8 = require('node:v8')
const { appendFileSync, writeFileSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const { PerformanceObserver, constants } = require('node:perf_hooks')

if (process.env.HEAP_STATS_FLAGS) setImmediate(() => { for (const flag of process.env.HEAP_STATS_FLAGS.split(' ')) v8.setFlagsFromString(flag) })
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
}
const gcs = {}
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = kinds[entry.detail?.kind] ?? String(entry.detail?.kind)
    const seen = (gcs[kind] ??= { count: 0, ms: 0 })
    seen.count++
    seen.ms += entry.duration
  }
}).observe({ entryTypes: ['gc'] })

process.on('SIGUSR2', () => {
  const mib = (n) => +(n / 2 ** 20).toFixed(1)
  const file = join(process.env.HEAP_STATS_DIR ?? tmpdir(), `heap-${process.pid}.txt`)
  const spaces = v8.getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => `${s.space_name}=${mib(s.space_size)}/${mib(s.space_used_size)}`)
  const m = process.memoryUsage()
  const cpu = process.cpuUsage()
  writeFileSync(file, `spaces (MiB size/used): ${spaces.join(' ')}\n`)
  appendFileSync(file, `memoryUsage (MiB): rss=${mib(m.rss)} heapTotal=${mib(m.heapTotal)} heapUsed=${mib(m.heapUsed)} external=${mib(m.external)} arrayBuffers=${mib(m.arrayBuffers)}\n`)
  appendFileSync(file, `gc: ${Object.entries(gcs).map(([k, g]) => `${k} ${g.count}x ${g.ms.toFixed(0)} ms`).join(', ')}; cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s\n`)
})

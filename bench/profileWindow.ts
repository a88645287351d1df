/**
 * `npx tsx bench/profileWindow.ts PROFILE FROM TO [--dir CHECKOUT] [--top N] [--per N] [--stack REGEX]`: where the
 * main thread's time goes in one V8 CPU profile (`node --cpu-prof`, e.g. bench/seqTransfers.ts `DEVNET_PROF=dir`)
 * between two hrtime marks in microseconds (the `window FROM TO` those benches print). Frames of the CLI bundle are
 * mapped to their source file through CHECKOUT's dist/bundle/cli.cjs.map (default: this checkout). Prints the busy
 * time, then the top functions and files by self time, and by inclusive time (each function counted once per
 * sample); `--per N` divides every figure by N (ms per transfer). `--stack REGEX`: the inclusive time of the
 * stacks that hold a frame matching REGEX (`function file`), split by their leaf's file. The profiler samples
 * wall time: a descheduled main thread's time lands on whatever it was running.
 */
import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { join } from 'node:path'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i < 0 ? fallback : args[i + 1]!
}
const [file, fromArg, toArg] = args
if (!file || !fromArg || !toArg) throw new Error('usage: npx tsx bench/profileWindow.ts PROFILE FROM TO [--dir CHECKOUT] [--top N] [--per N] [--stack REGEX]')
const from = Number(fromArg)
const to = Number(toArg)
const top = Number(option('--top', '40'))
const per = Number(option('--per', '1'))
const stackPattern = option('--stack', '')
const dir = option('--dir', process.cwd())

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number }
type Profile = { nodes: { id: number; callFrame: Frame; children?: number[] }[]; startTime: number; samples: number[]; timeDeltas: number[] }
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const maps = new Map<string, SourceMap>()
const mapOf = (bundle: string) => {
  if (!maps.has(bundle)) maps.set(bundle, new SourceMap(JSON.parse(readFileSync(join(dir, 'dist', 'bundle', `${bundle}.cjs.map`), 'utf8'))))
  return maps.get(bundle)!
}
const labels = new Map<number, string>()
/** `function source:line` of a profile node, the bundle's frames mapped to their source. */
const label = (id: number) => {
  let found = labels.get(id)
  if (found !== undefined) return found
  const frame = byId.get(id)!.callFrame
  const bundle = /bundle[^/]*\/(cli|front)\.cjs$/.exec(frame.url)?.[1]
  let where = frame.url.split('/').slice(-2).join('/')
  let line = frame.lineNumber + 1
  if (bundle) {
    const entry = mapOf(bundle).findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number }
    where = (entry.originalSource ?? `${bundle}.cjs`).replace(/^.*?((node_modules|src)\/)/, '$1')
    line = (entry.originalLine ?? 0) + 1
  }
  found = `${frame.functionName || '(anonymous)'} ${where}:${line}`
  labels.set(id, found)
  return found
}
const fileOf = (l: string) => l.slice(l.indexOf(' ') + 1).replace(/:\d+$/, '')

const self = new Map<string, number>()
const selfFile = new Map<string, number>()
const inclusive = new Map<string, number>()
const matched = new Map<string, number>()
let busy = 0
let at = profile.startTime
const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms)
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i]!
  if (at < from || at > to) continue
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
  const leafId = profile.samples[i]!
  const leaf = byId.get(leafId)!.callFrame
  if (leaf.functionName === '(idle)' || leaf.functionName === '(program)' && false) continue
  if (leaf.functionName === '(idle)') continue
  busy += ms
  const leafLabel = label(leafId)
  add(self, leafLabel, ms)
  add(selfFile, fileOf(leafLabel), ms)
  const seen = new Set<string>()
  let hit = false
  for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
    const l = label(id)
    if (stackPattern && new RegExp(stackPattern).test(l)) hit = true
    if (seen.has(l)) continue
    seen.add(l)
    add(inclusive, l, ms)
  }
  if (hit) add(matched, fileOf(leafLabel), ms)
}
const show = (title: string, map: Map<string, number>, n = top) => {
  console.log(`\n${title}`)
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${(ms / per).toFixed(3).padStart(9)}  ${key}`)
}
console.log(`busy ${(busy / per).toFixed(3)} ms${per !== 1 ? ` per unit (÷${per})` : ''} in ${((to - from) / 1000).toFixed(0)} ms`)
show('self by file', selfFile)
show('self by function', self)
show('inclusive by function', inclusive, top * 2)
if (stackPattern) {
  const total = [...matched.values()].reduce((a, b) => a + b, 0)
  show(`stacks matching /${stackPattern}/: ${(total / per).toFixed(3)} ms, by leaf file`, matched)
}

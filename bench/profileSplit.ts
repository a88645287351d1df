/**
 * `npx tsx bench/profileSplit.ts DIR [--window read|first|all] [--kind cold|warm] [--by module|function] [--top N]`:
 * where the CLI's time goes in the V8 CPU profiles that `bench/forkStart.ts --prof DIR` wrote, averaged
 * over the starts, one table per variant (checkout). Samples are mapped through the bundles' source maps (dist/bundle/cli.cjs.map and
 * front.cjs.map, of the checkout that ran: each start's variant in DIR/marks.json) and charged to:
 * - `init <module>`: evaluating that module (the innermost of esbuild's module wrappers on the stack);
 * - `run: <function> <file>`: the outermost bundled function on the stack otherwise (with `--by function`,
 *   the innermost: the function itself);
 * - `GC`, and node's own functions in brackets.
 * `--window read` (the default) keeps the samples between the start's first eth_chainId answer and its
 * read's answer (the cold-read row), `first` those before the first answer, `all` both. The profiler
 * samples wall time: on a loaded machine a descheduled thread's time lands on whatever ran, so compare
 * runs taken under the same load, and the CPU columns of bench/forkStart.ts first.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { join } from 'node:path'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i < 0 ? fallback : args[i + 1]!
}
const dir = args[0] ?? ''
if (!dir || dir.startsWith('--')) throw new Error('usage: npx tsx bench/profileSplit.ts DIR [--window read|first|all] [--kind cold|warm] [--by module|function] [--top N]')
const window = option('--window', 'read')
const kind = option('--kind', '')
const byFunction = option('--by', 'module') === 'function'
const top = Number(option('--top', '30'))

type Mark = { pid: number; variant: string; kind: 'cold' | 'warm'; chainIdAt: number; readAt: number }
type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number }
type Profile = { nodes: { id: number; callFrame: Frame; children?: number[] }[]; startTime: number; samples: number[]; timeDeltas: number[] }

const marks = (JSON.parse(readFileSync(join(dir, 'marks.json'), 'utf8')) as Mark[]).filter((m) => !kind || m.kind === kind)
const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
const maps = new Map<string, SourceMap>()
const mapOf = (variant: string, bundle: string) => {
  const key = `${variant}/${bundle}`
  if (!maps.has(key)) maps.set(key, new SourceMap(JSON.parse(readFileSync(join(variant, 'dist', 'bundle', `${bundle}.cjs.map`), 'utf8'))))
  return maps.get(key)!
}

for (const variant of new Set(marks.map((m) => m.variant))) report(variant, marks.filter((m) => m.variant === variant))

function report(variant: string, marks: Mark[]) {
const totals = new Map<string, number>()
let busy = 0
for (const mark of marks) {
  const file = profiles.find((f) => f.includes(`.${mark.pid}.`))
  if (!file) continue
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  // The bundle's own frames, as source file and function; undefined for node's.
  const source = (frame: Frame) => {
    const bundle = /bundle[^/]*\/(cli|front)\.cjs$/.exec(frame.url)?.[1]
    if (!bundle) return undefined
    const entry = mapOf(mark.variant, bundle).findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string }
    return (entry.originalSource ?? `${bundle}.cjs`).replace(/^.*?((node_modules|src)\/)/, '$1')
  }
  const [from, to] = window === 'first' ? [profile.startTime, mark.chainIdAt] : window === 'all' ? [profile.startTime, mark.readAt] : [mark.chainIdAt, mark.readAt]
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!
    if (at < from || at > to) continue
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    const leaf = byId.get(profile.samples[i]!)!.callFrame
    if (leaf.functionName === '(idle)') continue
    busy += ms
    const stack: Frame[] = []
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!.callFrame)
    // esbuild names a module's wrapper after the module's path.
    const init = stack.find((f) => /^(node_modules|src)\//.test(f.functionName))
    const bundled = stack.filter((f) => source(f) !== undefined)
    const own = byFunction ? bundled[0] : bundled.at(-1)
    const label =
      leaf.functionName === '(garbage collector)'
        ? 'GC'
        : !byFunction && init
          ? `init ${init.functionName.replace(/^node_modules\//, '')}`
          : own
            ? `run: ${own.functionName || '(anonymous)'} ${source(own)}`
            : `[${leaf.functionName || '(anonymous)'} ${leaf.url.split('/').pop()}]`
    totals.set(label, (totals.get(label) ?? 0) + ms)
  }
}
const starts = marks.length
console.log(`${variant}: ${starts} starts, window ${window}${kind ? `, ${kind}` : ''}: ${(busy / starts).toFixed(1)} ms busy on average`)
for (const [label, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(ms / starts).toFixed(2).padStart(7)}  ${label}`)
}

/**
 * `npx tsx bench/perfSplit.ts PERF_DATA [--tid TID] [--dir CHECKOUT] [--per N] [--top N] [--unmatched]`: the CPU
 * of one thread (default: the process's main thread) in a `perf record -g` of devnet (bench/seqTransfers.ts
 * `PERF=file`, the node run with --perf-basic-prof), split into phases. Unlike the V8 profiler, perf samples CPU
 * time (cpu-clock), so a descheduled thread's time is not charged to what it was running. JS frames of the
 * bundles are mapped to their source through CHECKOUT's dist/bundle/*.cjs.map. Each sample goes to the first
 * rule, from the leaf up, that one of its frames matches (`function source`): the innermost phase. `--per N`
 * divides by N (ms per transfer); `--unmatched` lists the top leaf frames no rule took.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { join } from 'node:path'

const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i < 0 ? fallback : args[i + 1]!
}
const data = args[0]
if (!data) throw new Error('usage: npx tsx bench/perfSplit.ts PERF_DATA [--tid TID] [--dir CHECKOUT] [--per N] [--top N] [--unmatched]')
const dir = option('--dir', process.cwd())
const per = Number(option('--per', '1'))
const top = Number(option('--top', '25'))

/** Phases, innermost first where they nest: [name, pattern over `function source`]. */
const rules: [string, RegExp][] = [
  ['GC', /Heap::|Scavenger|MarkCompact|GCTracer|ArrayBufferSweeper|ConcurrentMarking|MinorMarkSweep/],
  ['compile (main thread)', /compiler::|Compiler::|CompileLazy|Parser::|BytecodeGenerator|Maglev|baseline::/],
  ['keccak', /keccak|wasm-function/],
  ['sig recovery (secp256k1)', /secp256k1|ecdsaRecover|getSenderPublicKey|getSenderAddress/],
  ['tx decode', /decodeRawTx|createTxFromRLP|decodeRaw /],
  ['fork: cache log write', /appendCacheLog|cacheLog\.ts/],
  ['fork: upstream client', /src\/node\/fork\/(httpClient|remote|transport)\.ts/],
  ['fork: prefetch', /prefetch\.ts|prefetchOnFork/],
  ['fork: source', /src\/node\/fork\/source\.ts/],
  ['fork: state checks', /src\/evm\/forkState\.ts/],
  ['state root: trie flush', /batchTrieUpdate|batchedFlush|deferredFlush|packedNodeStore|trieNodeCodec|getStateRoot/],
  ['block/receipt roots', /orderedTrie/],
  ['EVM run (runTx)', /runTx|interpreter|Interpreter|opcode|evmFrames|runCall|runCode|ethereumjs\/evm\//],
  ['state reads/writes', /statemanager|accountMemo|accountCodec|statePatches|trieReadMemo|ethereumjs\/mpt\//],
  ['seal: header/block', /builderSeal|sealBuiltBlock|ethereumjs\/block\/|buildBlock/],
  ['chain append + indexes', /src\/node\/(chain|logIndex|compactStored|receiptEncoding)\.ts/],
  ['pending layer (preconf start/tick)', /src\/node\/preconf\.ts/],
  ['pool', /src\/node\/(pool|txpool)\.ts/],
  ['events/subscriptions/filters', /src\/node\/(events|filters)\.ts|subscriptions|src\/server\/ws/],
  ['node (admit/seal glue/queue)', /src\/node\/(node|queue|autoSeal|sealer)\.ts/],
  ['rpc dispatch/codecs/format', /src\/rpc\//],
  ['http server (answer/parse)', /src\/server\/|front\.cjs|src\/cli\/front/],
  ['node streams/net', /node:(net|internal\/stream|internal\/streams|events)|StreamBase|LibuvStreamWrap|uv__|writev|__send|__recv|tcp_|sock_|sys_/],
  ['timers/microtasks', /node:internal\/timers|processImmediate|RunMicrotasks|processTicksAndRejections/],
]

const maps = new Map<string, SourceMap | null>()
const mapOf = (file: string) => {
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(join(dir, 'dist', 'bundle', `${file}.map`), 'utf8'))))
    } catch {
      maps.set(file, null)
    }
  }
  return maps.get(file)!
}
const names = new Map<string, string>()
/** `function source` of a perf frame's symbol; JS frames of the bundles mapped to their source. */
function frameName(symbol: string): string {
  let found = names.get(symbol)
  if (found !== undefined) return found
  found = symbol.replace(/\+0x[0-9a-f]+$/, '')
  const js = /^JS:[*^~+]?(.*?) (\S+?):(\d+):(\d+)$/.exec(found)
  if (js) {
    const [, fn, url, line, col] = js
    const bundle = /dist\/bundle\/([^/]+\.cjs)$/.exec(url!)?.[1]
    let where = url!
    if (bundle) {
      const map = mapOf(bundle)
      const entry = map?.findEntry(Number(line) - 1, Number(col) - 1) as { originalSource?: string; originalLine?: number } | undefined
      where = `${(entry?.originalSource ?? bundle).replace(/^.*?((node_modules|src)\/)/, '$1')}:${(entry?.originalLine ?? -1) + 1}`
    }
    found = `${fn || '(anonymous)'} ${where}`
  }
  names.set(symbol, found)
  return found
}

const pid = option('--tid', '')
/** `--phase NAME`: the matched frames of that phase's samples, with their callers. */
const focus = option('--phase', '')
const focused = new Map<string, number>()
const text = execFileSync('perf', ['script', '-i', data, '-F', 'tid,period,ip,sym', ...(pid ? ['--tid', pid] : [])], { maxBuffer: 1 << 30, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
const samples = text.split('\n\n')
// The main thread: the lowest tid (the process's own) unless given.
let tid = pid
if (!tid) {
  let lowest = Infinity
  for (const s of samples) {
    const t = Number(/^\s*(\d+)/.exec(s)?.[1])
    if (t && t < lowest) lowest = t
  }
  tid = String(lowest)
}
const byPhase = new Map<string, number>()
const unmatched = new Map<string, number>()
const byLeaf = new Map<string, number>()
/** By the outermost JS frame: the callback or the resumed async function the event loop ran. */
const byRoot = new Map<string, number>()
/** Each bundle function counted once per sample it is on the stack of. */
const inclusive = new Map<string, number>()
let total = 0
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
for (const s of samples) {
  const lines = s.split('\n').filter((l) => l.trim())
  if (lines.length === 0) continue
  const head = /^\s*(\d+)\s+(\d+)/.exec(lines[0]!)
  if (!head || head[1] !== tid) continue
  const ms = Number(head[2]) / 1e6
  total += ms
  const frames = lines.slice(1).map((l) => frameName(l.trim().replace(/^[0-9a-f]+\s+/, '').replace(/ \(.*\)$/, '')))
  if (frames.length > 0) add(byLeaf, frames[0]!, ms)
  const js = frames.filter((f) => / (src|node_modules)\//.test(f))
  add(byRoot, js.at(-1) ?? '(no bundle frame)', ms)
  for (const f of new Set(js)) add(inclusive, f, ms)
  let phase: string | undefined
  for (const f of frames) {
    phase = rules.find(([, re]) => re.test(f))?.[0]
    if (phase) break
  }
  if (!phase && frames.some((f) => /epoll_pwait|uv__io_poll/.test(f)) && frames.length <= 4) phase = 'idle poll'
  add(byPhase, phase ?? 'other', ms)
  if (focus && phase === focus) {
    // The matched frame and its two callers (bundle frames only).
    const at = frames.findIndex((f) => rules.find(([name]) => name === phase)![1].test(f))
    add(focused, frames.slice(at).filter((f) => / (src|node_modules)\//.test(f)).slice(0, 3).join(' < '), ms)
  }
  if (!phase) add(unmatched, frames.slice(0, 3).join(' < '), ms)
}
const show = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title}`)
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${(v / per).toFixed(3).padStart(8)}  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
}
console.log(`thread ${tid}: ${(total / per).toFixed(3)} ms of CPU samples${per !== 1 ? ` per unit (÷${per})` : ''}`)
show('by phase (innermost rule that matches)', byPhase, 40)
show('by leaf frame', byLeaf, top)
show('by outermost bundle frame (the callback or resumed async function)', byRoot, top)
if (focus) show(`phase ${focus}: matched frame < caller < caller`, focused, top)
if (args.includes('--inclusive')) show('inclusive by bundle function (synchronous callers only)', inclusive, top * 3)
if (args.includes('--unmatched')) show('unmatched (leaf < caller < caller)', unmatched, top)

/**
 * Profiling aid: where one auto-mined token transfer's time goes inside the node, phase by phase, on a plain
 * devnet in this process (no HTTP): pre-signed transfers to fresh recipients submitted one after another
 * through node.submit, with the node's parts (createNodeWithParts) wrapped to time each call. Wall time of the
 * main thread (process.hrtime), median per transfer over `N` (300) after `WARMUP` (100): on a loaded machine
 * compare runs taken together, and the CPU figures of bench/seqTransfers.ts first.
 *
 *   npx tsx bench/sealPhases.ts
 */
import { signTransfer } from './forkUpstream.js'
import { nodeWithParts } from '../test/nodeWithParts.js'

const n = Number(process.env.N ?? 300)
const warmup = Number(process.env.WARMUP ?? 100)
const devnet = await nodeWithParts({ mining: 'auto', clock: 'wall' })
const { node, parts } = devnet
const token = devnet.token.address as `0x${string}`
const raws: Uint8Array[] = []
for (let i = 0; i < n + warmup; i++) {
  const signed = await signTransfer(token, i, i + 1, { chainId: devnet.chain.id })
  raws.push(Buffer.from(signed.slice(2), 'hex'))
}

/** Milliseconds per phase in the current transfer. */
let current = new Map<string, number>()
/** The outer phase running (a flush is charged to it too). */
let outer = ''
const wrap = <T extends object>(object: T, key: keyof T & string, name: string, inner = false) => {
  const original = (object[key] as (...args: unknown[]) => unknown).bind(object)
  ;(object as Record<string, unknown>)[key] = (...args: unknown[]) => {
    const t = process.hrtime.bigint()
    const label = inner ? `${name} in ${outer || '?'}` : name
    if (!inner) outer = key
    const done = () => current.set(label, (current.get(label) ?? 0) + Number(process.hrtime.bigint() - t) / 1e6)
    const result = original(...args)
    if (result instanceof Promise) return result.finally(done)
    done()
    return result
  }
}
wrap(parts.preconf, 'start', 'preconf.start (block start: builder, system writes, root)')
wrap(parts.preconf, 'tick', 'preconf.tick (runTx + snapshot root)')
wrap(parts.preconf, 'seal', 'preconf.seal (header, block)')
wrap(parts.chain, 'append', 'chain.append')
const state = parts.preconf.vm().stateManager as unknown as Record<string, unknown>
wrap(state as never, 'flush', 'state flush', true)

const rows = new Map<string, number[]>()
for (let i = 0; i < n + warmup; i++) {
  current = new Map()
  const t = process.hrtime.bigint()
  const tx = node.decodeRaw(raws[i]!)
  current.set('decode', Number(process.hrtime.bigint() - t) / 1e6)
  await node.submit(tx)
  current.set('total (decode + submit until sealed)', Number(process.hrtime.bigint() - t) / 1e6)
  if (i >= warmup) for (const [k, v] of current) rows.set(k, [...(rows.get(k) ?? []), v])
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
for (const [k, v] of rows) console.log(`${median(v).toFixed(3).padStart(7)} ms  ${k}`)
await devnet.close()

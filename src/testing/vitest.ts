import { afterEach, beforeEach } from 'vitest'
import { type DevnetOptions, type StartedDevnet, startDevnet } from '../index.js'

/**
 * devnet for vitest: each worker process gets its own devnet (in-process,
 * 127.0.0.1, a free port), and `useDevnet` wraps every test of the calling
 * file or suite in evm_snapshot / evm_revert, so tests start from the same
 * chain whatever ran before them in that worker. Workers never share a
 * devnet, so parallel files never see each other's transactions.
 *
 * ```ts
 * import { useDevnet } from 'devnet/vitest'
 * const devnet = await useDevnet()          // top level of a test file, or of a setupFiles entry
 * test('pays', async () => { ... devnet.url ... })
 * ```
 */

/** The test defaults: blocks only when asked, deterministic time, no console output. */
export const testDefaults: DevnetOptions = { mining: 'manual', clock: 'virtual', quiet: true, port: 0 }

type WorkerSlot = { key: string; devnet: Promise<StartedDevnet> }

// On globalThis so that every test file a worker runs (vitest re-evaluates modules per file) finds the same devnet.
const slotKey = Symbol.for('devnet.vitest.worker')
const global = globalThis as typeof globalThis & { [slotKey]?: WorkerSlot }

const keyOf = (options: DevnetOptions) =>
  JSON.stringify(options, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))

/**
 * This worker's devnet, started on first use with `testDefaults` under
 * `options`. Every later call in the worker gets the same one; asking for
 * different options in the same worker is an error rather than a silent
 * second devnet.
 */
export function workerDevnet(options: DevnetOptions = {}): Promise<StartedDevnet> {
  const merged = { ...testDefaults, ...options }
  const key = keyOf(merged)
  const slot = global[slotKey]
  if (slot) {
    if (slot.key !== key)
      return Promise.reject(
        new Error(`this vitest worker already runs a devnet with other options (${slot.key}); use one set of options per worker`),
      )
    return slot.devnet
  }
  const devnet = startDevnet(merged)
  global[slotKey] = { key, devnet }
  devnet.catch(() => {
    if (global[slotKey]?.devnet === devnet) delete global[slotKey]
  })
  return devnet
}

/** Stops this worker's devnet (the next `workerDevnet` starts a fresh one). */
export async function closeWorkerDevnet(): Promise<void> {
  const slot = global[slotKey]
  if (!slot) return
  delete global[slotKey]
  await (await slot.devnet).close()
}

/**
 * Resolves with this worker's devnet and registers, in the current scope,
 * a snapshot before each test and a revert after it. Call it at the top
 * level of a test file (or of a `setupFiles` entry, to cover every file).
 */
export async function useDevnet(options: DevnetOptions = {}): Promise<StartedDevnet> {
  const devnet = await workerDevnet(options)
  let id: `0x${string}` | undefined
  beforeEach(async () => {
    id = await devnet.request({ method: 'evm_snapshot' })
  })
  afterEach(async () => {
    if (id === undefined) return
    const reverted = await devnet.request({ method: 'evm_revert', params: [id] })
    id = undefined
    if (reverted !== true) throw new Error('devnet/vitest: could not revert to the snapshot taken before this test')
  })
  return devnet
}

export type { StartedDevnet, DevnetOptions }

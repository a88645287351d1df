import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Common } from '@ethereumjs/common'
import { describe, expect, it } from 'vitest'
import { createDevCommon } from '../../src/evm/common.js'
import {
  EnginePatchMismatchError,
  UnknownEipError,
  applyLazyPatch,
  assertKnownEips,
  checkFingerprints,
  engineMode,
  engineModeOf,
  enginePatches,
  fingerprintOf,
  lazyPatchApplied,
  upstreamSources,
  verifyEnginePatches,
} from '../../src/evm/patches/registry.js'

const stock = engineModeOf() === 'stock'

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourcesUnder(path) : path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : []
  })
}

describe('engine patch registry', () => {
  it('lists each patch once, with what it replaces, why, and a sha256 fingerprint', () => {
    const ids = enginePatches.map((p) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(enginePatches.length).toBeGreaterThanOrEqual(29)
    for (const patch of enginePatches) {
      expect(patch.replaces.length, patch.id).toBeGreaterThan(0)
      expect(patch.why.length, patch.id).toBeGreaterThan(20)
      expect(patch.fingerprint, patch.id).toMatch(/^[0-9a-f]{64}$/)
      expect(patch.scope === 'process' ? typeof patch.apply : 'function', patch.id).toBe('function')
      for (const source of upstreamSources(patch)) expect(source, patch.id).not.toBe('<missing>')
    }
  })

  it('every fingerprint matches the installed @ethereumjs', () => {
    expect(checkFingerprints()).toEqual([])
    expect(() => verifyEnginePatches()).not.toThrow()
  })

  it('a changed upstream function (a simulated upgrade) fails loudly, naming the patch', () => {
    const upgraded = (patch: (typeof enginePatches)[number]) =>
      patch.id === 'interpreter-loop' ? upstreamSources(patch).map((s) => s.replace('programCounter', 'pc')) : upstreamSources(patch)
    let error: unknown
    try {
      verifyEnginePatches(enginePatches, upgraded)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(EnginePatchMismatchError)
    expect((error as EnginePatchMismatchError).patches).toEqual(['interpreter-loop'])
    expect((error as Error).message).toContain('interpreter-loop: @ethereumjs/evm: Interpreter.prototype.run')
    expect((error as Error).message).toContain('DEVNET_ENGINE=stock')
  })

  it('an altered recorded fingerprint fails with that patch named', () => {
    const altered = enginePatches.map((p) => (p.id === 'rlp-encode' || p.id === 'batched-flush' ? { ...p, fingerprint: fingerprintOf(['10.2.0']) } : p))
    expect(() => verifyEnginePatches(altered)).toThrow(/2 of them: rlp-encode, batched-flush/)
  })

  it.skipIf(stock)('every process patch is in effect, and every instance patch is asked for where it applies', () => {
    expect(engineMode()).toBe('devnet')
    createDevCommon(31337n, 'prague')
    for (const patch of enginePatches.filter((p) => p.scope === 'process' && !p.lazy)) {
      const now = patch.upstream().map(String)
      expect(now, patch.id).not.toEqual(upstreamSources(patch))
    }
    // An instance patch on devnet's own Common, kept by the copies every VM, block and transaction makes.
    const common = createDevCommon(31337n, 'prague')
    expect(common.copy().isActivatedEIP).not.toBe(Common.prototype.isActivatedEIP)
    expect(Object.hasOwn(Common.prototype, 'isActivatedEIP') && Common.prototype.isActivatedEIP.toString()).toContain('includes')
    const code = sourcesUnder(join(import.meta.dirname, '../../src')).join('\n')
    for (const patch of enginePatches.filter((p) => p.scope === 'instance'))
      expect(code, patch.id).toContain(`patchActive('${patch.id}')`)
  })

  it('the fork mode\'s state patch is in the registry, lazy: applied only when a fork opens, after its fingerprint check', async () => {
    const { MerkleStateManager } = await import('@ethereumjs/statemanager')
    const { attachFork, forkStateUpstream } = await import('../../src/evm/forkState.js')
    const patch = enginePatches.find((p) => p.id === 'fork-state')!
    expect(patch).toMatchObject({ scope: 'process', lazy: true, feature: true, file: 'src/evm/forkState.ts' })
    expect(patch.upstream).toBe(forkStateUpstream)
    // A simulated upgrade of one wrapped method names the patch.
    const upgraded = (p: typeof patch) => (p.id === 'fork-state' ? upstreamSources(p).map((s, i) => (i === 4 ? `${s} ` : s)) : upstreamSources(p))
    expect(() => verifyEnginePatches(enginePatches, upgraded)).toThrow(/1 of them: fork-state/)
    // Not applied before a fork (installEngine leaves it), then applied once by the first attachFork.
    engineMode()
    expect(lazyPatchApplied('fork-state')).toBe(false)
    const before = MerkleStateManager.prototype.getStorage
    const state = new MerkleStateManager()
    await attachFork(state, {
      account: async () => undefined,
      code: async () => new Uint8Array(),
      storage: async () => new Uint8Array(),
      hasStorage: async () => false,
    })
    expect(lazyPatchApplied('fork-state')).toBe(true)
    expect(MerkleStateManager.prototype.getStorage).not.toBe(before)
    const after = MerkleStateManager.prototype.getStorage
    applyLazyPatch('fork-state')
    expect(MerkleStateManager.prototype.getStorage).toBe(after)
    // Its fingerprint is still checked against the library as it was before any patch.
    expect(checkFingerprints([patch])).toEqual([])
    expect(() => applyLazyPatch('rlp-encode')).toThrow(/no lazy engine patch named rlp-encode/)
  })

  it.skipIf(stock)('an active EIP the patches were not written for stops the chain from starting', () => {
    const common = createDevCommon(31337n, 'osaka')
    expect(() => assertKnownEips(common)).not.toThrow()
    const future = common.copy() as unknown as { HARDFORK_CHANGES: [string, { eips?: number[] }][] }
    future.HARDFORK_CHANGES = [...future.HARDFORK_CHANGES, ['glamsterdam', { eips: [7999, 1559] }]]
    expect(() => assertKnownEips(future as never)).toThrow(UnknownEipError)
    expect(() => assertKnownEips(future as never)).toThrow(/EIP-7999/)
  })

  it('DEVNET_ENGINE takes devnet or stock, nothing else', () => {
    expect(engineModeOf({})).toBe('devnet')
    expect(engineModeOf({ DEVNET_ENGINE: 'stock' })).toBe('stock')
    expect(engineModeOf({ DEVNET_ENGINE: 'devnet' })).toBe('devnet')
    expect(() => engineModeOf({ DEVNET_ENGINE: 'fast' })).toThrow(/"devnet" or "stock"/)
  })
})

import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engineModeOf, enginePatches } from '../../src/evm/patches/registry.js'
import { importsOf } from '../architecture/rules.js'

/*
 * Host isolation: an application (or a test suite) that imports devnet must
 * keep its own @ethereumjs as published. Checked in a fresh process (Node
 * caches ES modules per process, and other test files in a worker may have
 * created devnets): the host's library code is compared with the
 * fingerprints of the pristine upstream (src/evm/patches/registry.ts) and its
 * prototypes' methods by identity.
 *
 * The package (dist/) runs its engine from dist/evm/engine.js, a bundle with
 * a private copy of @ethereumjs (scripts/engineBundle.mjs): the host's stays
 * untouched even after a devnet ran. From source (src/, as devnet's own test
 * suites run), the engine shares the process's @ethereumjs and patches it.
 */
const root = fileURLToPath(new URL('../../', import.meta.url))
const probe = fileURLToPath(new URL('./isolation/probe.ts', import.meta.url))
type Changes = { patches: string[]; references: string[] }
type Crossing = { message: string; chainImportError: boolean; devnetError: boolean; causeChainImportError: boolean }
type Report = { afterImport: Changes; afterCreate: Changes; status: string; engineRlpPatched?: boolean; crossing: Crossing }

function runProbe(engine: 'devnet' | 'stock', dist?: string): Report {
  const out = execFileSync(process.execPath, ['--import', 'tsx', probe, ...(dist ? [dist] : [])], {
    cwd: root,
    env: { ...process.env, DEVNET_ENGINE: engine },
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

const unchanged = { patches: [], references: [] }
/** A genesis the engine refuses: its ChainImportError is the entry's (named file), and a DevnetError of src/errors. */
const oneErrorCopy: Crossing = {
  message: 'genesis <file>: number: only a genesis at block 0 is supported',
  chainImportError: true,
  devnetError: true,
  causeChainImportError: true,
}

describe.skipIf(engineModeOf() === 'stock')('host isolation', () => {
  const processPatches = enginePatches.filter((p) => p.scope === 'process').map((p) => p.id)

  describe('the built package (dist/index.js, dist/testing/vitest.js): a private engine', () => {
    // dist/ when `npm run build` (or `prepare`) made it from the current sources, else the library built here, into a
    // folder inside the package so that node_modules is found (`.devnet-*/` is git-ignored).
    let dist = join(root, 'dist')
    let scratch: string | undefined
    beforeAll(() => {
      const stale = execFileSync(process.execPath, ['--input-type=module', '-e', "const { isStale } = await import('./scripts/build.mjs'); console.log(isStale())"], { cwd: root, encoding: 'utf8' }).trim()
      if (stale === 'false') return
      scratch = join(root, `.devnet-isolation-test-${process.pid}`)
      dist = join(scratch, 'dist')
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--library', '--outdir', dist], { cwd: root, stdio: 'pipe' })
    }, 300_000)
    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    })

    it('importing devnet and devnet/vitest, creating a devnet and sending a transaction leave the host @ethereumjs and RLP untouched; the patches reach the private copy; an engine error crossing to the entry has one class', () => {
      const report = runProbe('devnet', dist)
      expect(report.status).toBe('0x1')
      expect(report.afterImport).toEqual(unchanged)
      expect(report.afterCreate).toEqual(unchanged)
      expect(report.engineRlpPatched).toBe(true)
      expect(report.crossing).toEqual(oneErrorCopy)
    })

    it('with DEVNET_ENGINE=stock, the same, and the private copy stays unpatched too', () => {
      const report = runProbe('stock', dist)
      expect(report.status).toBe('0x1')
      expect(report.afterCreate).toEqual(unchanged)
      expect(report.engineRlpPatched).toBe(false)
    })

    it('no file of dist/ loads @ethereumjs or an engine module but dist/evm/engine.js, which inlines @ethereumjs', () => {
      const files = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const path = join(dir, name)
          return statSync(path).isDirectory() ? files(path) : path.endsWith('.js') ? [path] : []
        })
      const engine = join(dist, 'evm', 'engine.js')
      const loads = (file: string) => {
        const source = readFileSync(file, 'utf8')
        const required = [...source.matchAll(/\brequire\s*\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2]!)
        return [...importsOf(source).map((r) => r.specifier), ...required]
      }
      const problems: string[] = []
      for (const file of files(dist).filter((f) => !f.startsWith(join(dist, 'bundle')) && !f.startsWith(join(dist, 'ui', 'page')))) {
        for (const specifier of loads(file)) {
          if (specifier.startsWith('@ethereumjs/')) problems.push(`${relative(dist, file)} loads ${specifier}`)
          const target = specifier.startsWith('.') ? join(file, '..', specifier) : undefined
          if (target?.startsWith(join(dist, 'evm') + '/') && target !== engine) problems.push(`${relative(dist, file)} loads ${relative(dist, target)}`)
        }
      }
      expect(problems).toEqual([])
      // The engine is the bundle: the EVM's interpreter is in it, and its only engine file left in dist/evm/.
      expect(readFileSync(engine, 'utf8')).toMatch(/\bInterpreter = class\b|\bclass Interpreter\b/)
      expect(files(join(dist, 'evm')).map((f) => relative(dist, f))).toEqual(['evm/engine.js'])
      expect(existsSync(join(dist, 'evm', 'engine.d.ts'))).toBe(true)
    })
  })

  describe('from source (src/, as devnet runs its own tests): the engine shares the process library', () => {
    it('importing changes nothing; creating a devnet applies exactly the process-scoped patches', () => {
      const { afterImport, afterCreate, status, crossing } = runProbe('devnet')
      expect(status).toBe('0x1')
      expect(crossing).toEqual(oneErrorCopy)
      expect(afterImport).toEqual(unchanged)
      expect(afterCreate.patches).toEqual(processPatches)
      expect(afterCreate.references).toEqual([
        'RLP.encode',
        'EVM.prototype._executeCall',
        'EVM.prototype.runInterpreter',
        'MerkleStateManager.prototype.getAccount',
        'MerkleStateManager.prototype.putStorage',
        'MerkleStateManager.prototype.__devnetPatched',
        'MerkleStateManager.prototype.__devnetAccountMemo',
      ])
      // Common's memos are own properties of devnet's Commons: Common.prototype stays as published.
    })

    it('with DEVNET_ENGINE=stock, creating a devnet leaves the library untouched', () => {
      const { afterImport, afterCreate } = runProbe('stock')
      expect(afterImport).toEqual(unchanged)
      expect(afterCreate).toEqual(unchanged)
    })
  })
})

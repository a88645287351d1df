import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { knownBreaks } from './architecture/knownBreaks.js'
import { type Devnet, createDevnet } from '../src/index.js'
import { type Violation, checkFile, importsOf, layerRules, writablePartsMembers } from './architecture/rules.js'

const root = join(import.meta.dirname, '..')

/** Every .ts under src/ as a repository path (src/ui/page is browser code, built on its own). */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return path === join(root, 'src/ui/page') ? [] : sourcesUnder(path)
    return path.endsWith('.ts') ? [relative(root, path).split('\\').join('/')] : []
  })
}

const key = (v: Violation) => `${v.file} ${v.rule} ${v.detail}`
const rulesBroken = (file: string, source: string) => checkFile(file, source).map((v) => v.rule)

describe('architecture: src/ keeps the layer rules (docs/architecture.md)', () => {
  const files = sourcesUnder(join(root, 'src'))
  const found = files.flatMap((file) => checkFile(file, readFileSync(join(root, file), 'utf8')))
  const keys = [...new Set(found.map(key))].sort()

  it('no break beyond the known ones (test/architecture/knownBreaks.ts)', () => {
    expect(files.length).toBeGreaterThan(150)
    expect(keys.filter((k) => !knownBreaks.includes(k))).toEqual([])
  })

  it('every known break still exists: the list only shrinks (delete fixed entries)', () => {
    expect(knownBreaks.filter((k) => !keys.includes(k))).toEqual([])
  })

  it('every area of src/ has a rule', () => {
    const areas = new Set(files.map((f) => (f.split('/').length === 2 ? f.slice(4, -3) : f.split('/')[1]!)))
    for (const area of areas) expect(['errors', 'config', 'artifacts', ...Object.keys(layerRules)], area).toContain(area)
  })
})

describe('architecture: the import scanner', () => {
  it('reads import, import type, export-from, side-effect and dynamic imports, with their line', () => {
    const source = [
      "import { a } from './a.js'",
      "import type { B } from '../b.js'",
      'import {',
      '  c,',
      "  d } from 'pkg-c'",
      "export { e } from './e.js'",
      "export * from '@scope/f'",
      "import 'side-effect'",
      "const g = await import('./g.js')",
      "const s = \"import x from 'not-an-import-in-a-string'\"",
    ].join('\n')
    const refs = importsOf(source)
    expect(refs.map((r) => [r.specifier, r.line])).toEqual([
      ['./a.js', 1],
      ['../b.js', 2],
      ['pkg-c', 3],
      ['./e.js', 6],
      ['@scope/f', 7],
      ['side-effect', 8],
      ['./g.js', 9],
      ['not-an-import-in-a-string', 10],
    ])
    expect(refs.find((r) => r.specifier === '../b.js')?.typeOnly).toBe(true)
  })

  it('ignores specifiers in comments', () => {
    expect(importsOf("// import { x } from '@ethereumjs/vm'\n/* export * from '../evm/a.js' */\nconst x = 1")).toEqual([])
  })
})

describe('architecture: each rule fails on its break', () => {
  it('@ethereumjs outside src/evm (a static, a type-only and a dynamic import)', () => {
    expect(rulesBroken('src/node/x.ts', "import { VM } from '@ethereumjs/vm'")).toEqual(['ethereumjs-outside-engine'])
    expect(rulesBroken('src/rpc/x.ts', "import type { Common } from '@ethereumjs/common'")).toEqual(['ethereumjs-outside-engine'])
    expect(rulesBroken('src/server/x.ts', "const m = await import('@ethereumjs/util')")).toEqual(['ethereumjs-outside-engine'])
    expect(rulesBroken('src/evm/x.ts', "import { VM } from '@ethereumjs/vm'")).toEqual([])
  })

  it('the direction server → rpc → node → evm: a lower layer never imports a higher one, rpc never the engine', () => {
    expect(rulesBroken('src/evm/x.ts', "import { n } from '../node/node.js'")).toEqual(['layer-direction'])
    expect(rulesBroken('src/node/x.ts', "import { r } from '../rpc/registry.js'")).toEqual(['layer-direction'])
    expect(rulesBroken('src/node/fork/x.ts', "export { s } from '../../server/http.js'")).toEqual(['layer-direction'])
    expect(rulesBroken('src/rpc/methods/x.ts', "import type { T } from '../../evm/types.js'")).toEqual(['layer-direction'])
    expect(rulesBroken('src/rpc/x.ts', "import { h } from '../server/http.js'")).toEqual(['layer-direction'])
    // Allowed: downward, and the leaves from anywhere.
    expect(rulesBroken('src/server/x.ts', "import { r } from '../rpc/registry.js'")).toEqual([])
    expect(rulesBroken('src/rpc/x.ts', "import { n } from '../node/node.js'")).toEqual([])
    expect(rulesBroken('src/node/x.ts', "import { e } from '../evm/engine.js'")).toEqual([])
    expect(rulesBroken('src/evm/x.ts', "import { e } from '../errors/base.js'\nimport { p } from '../config/predeploys.js'\nimport { a } from '../artifacts/paymentToken.js'")).toEqual([])
  })

  it('outside src/evm, values come from the engine only through src/evm/engine.ts (types may come from its files)', () => {
    expect(rulesBroken('src/node/x.ts', "import { executeTx } from '../evm/execute.js'")).toEqual(['engine-entry'])
    expect(rulesBroken('src/node/fork/x.ts', "import { type CallRequest, createCallTx } from '../../evm/execute.js'")).toEqual(['engine-entry'])
    expect(rulesBroken('src/index.ts', "const { importChain } = await import('./evm/geth/importChain.js')")).toEqual(['engine-entry'])
    expect(rulesBroken('src/cli/x.ts', "export { ChainImportError } from '../evm/geth/errors.js'")).toEqual(['engine-entry'])
    expect(rulesBroken('src/node/x.ts', "import { executeTx, type CallRequest } from '../evm/engine.js'")).toEqual([])
    expect(rulesBroken('src/node/x.ts', "import type { ExecutedTx } from '../evm/types.js'\nexport type { CallRequest } from '../evm/execute.js'")).toEqual([])
    expect(rulesBroken('src/evm/geth/x.ts', "import { executeTx } from '../execute.js'")).toEqual([])
  })

  it('the leaves import only leaves', () => {
    expect(rulesBroken('src/config/x.ts', "import { n } from '../node/node.js'")).toEqual(['leaf-imports-leaf'])
    expect(rulesBroken('src/config/x.ts', "import { e } from '../errors/base.js'")).toEqual([])
  })

  it('payments: its own files, src/artifacts, src/errors, the predeploy addresses, viem and node: builtins only', () => {
    expect(rulesBroken('src/payments/x.ts', "import { n } from '../node/node.js'")).toEqual(['payments-isolated'])
    expect(rulesBroken('src/payments/x.ts', "import { r } from '../rpc/format.js'")).toEqual(['payments-isolated'])
    expect(rulesBroken('src/payments/x.ts', "import { s } from '../config/schema.js'")).toEqual(['payments-isolated'])
    expect(rulesBroken('src/payments/x.ts', "import WebSocket from 'ws'")).toEqual(['payments-packages'])
    expect(
      rulesBroken(
        'src/payments/x.ts',
        "import { a } from './abi.js'\nimport { t } from '../artifacts/paymentToken.js'\nimport { e } from '../errors/base.js'\nimport { p } from '../config/predeploys.js'\nimport { parseAbi } from 'viem'\nimport { writeContract } from 'viem/actions'\nimport { readFileSync } from 'node:fs'",
      ),
    ).toEqual([])
  })

  it('x402: over JSON-RPC through payments, never the node', () => {
    expect(rulesBroken('src/x402/x.ts', "import { n } from '../node/node.js'")).toEqual(['layer-direction'])
    expect(rulesBroken('src/x402/x.ts', "import { c } from '../payments/capture.js'")).toEqual([])
  })

  it('rpc touching node internals', () => {
    expect(rulesBroken('src/rpc/methods/x.ts', 'const h = node.internals.setHead(block)')).toEqual(['rpc-node-internals', 'node-internals'])
    expect(rulesBroken('src/rpc/methods/x.ts', 'const { internals } = node\nconst i = node\n  .internals')).toEqual([
      'rpc-node-internals',
      'node-internals',
      'node-internals',
    ])
    expect(rulesBroken('src/rpc/methods/x.ts', '// node.internals was removed\nconst b = node.seal()')).toEqual([])
    expect(rulesBroken('src/rpc/methods/x.ts', "import type { InternalNode } from '../../node/node.js'")).toEqual(['rpc-node-internals', 'node-internals'])
  })

  it('no node reaches its writable parts: no internals or time on a node, anywhere under src/', () => {
    // Reaching through a node, in any layer (the fixture code once did: node.internals.chain, node.time.next).
    expect(rulesBroken('src/node/fixture/x.ts', 'const { chain, pool } = node.internals')).toEqual(['node-internals'])
    expect(rulesBroken('src/node/fixture/x.ts', 'node.time.next = undefined')).toEqual(['node-internals'])
    expect(rulesBroken('src/cli/x.ts', 'const store = nodeStoreOf(devnet.node.internals.state)')).toEqual(['node-internals'])
    expect(rulesBroken('src/index.ts', 'const { internals } = holder.node')).toEqual(['node-internals', 'entry-exports-internal-node'])
    // Declaring them on the node type: the interface as it was before issue 13, and the same renamed onto Node.
    const internalNode = [
      'export interface InternalNode extends Node {',
      '  /** The pinned next timestamp and the block interval (time control). */',
      '  readonly time: { next: bigint | undefined; interval: bigint | undefined }',
      '  readonly internals: {',
      '    chain: Chain',
      '    seal(): Promise<StoredBlock>',
      '    rebuildPending: Node[\'rebuildPending\']',
      '  }',
      '}',
    ].join('\n')
    expect(rulesBroken('src/node/types.ts', internalNode)).toEqual(['node-internals', 'node-internals', 'node-internals'])
    const onNode = 'export interface Node {\n  readonly config: DevnetConfig\n  seal(): Promise<StoredBlock>\n  readonly parts?: { chain: Chain }\n}'
    expect(rulesBroken('src/node/types.ts', onNode)).toEqual(['node-internals'])
    expect(rulesBroken('src/node/types.ts', 'export type Wide = Node & {\n  internals: Parts\n}')).toEqual(['node-internals'])
    // Members of nested objects and other types are not the node's: the parts themselves may have a `time`.
    expect(rulesBroken('src/node/types.ts', 'export interface Node {\n  views: { time(): bigint }\n  seal(): Promise<void>\n}')).toEqual([])
    expect(rulesBroken('src/node/types.ts', 'export type NodeParts = {\n  time: TimeControls\n  chain: Chain\n}')).toEqual([])
    // The builder internals of ethereumjs are not the node's.
    expect(rulesBroken('src/node/simulate/x.ts', 'const internals = builder as unknown as { checkpointed: boolean }\ninternals.checkpointed = true')).toEqual([])
  })

  it('the parts factory stays in src/node; the entry points never expose the internal node', () => {
    expect(rulesBroken('src/index.ts', "import { createNodeWithParts } from './node/node.js'")).toEqual([
      'node-parts-outside-node',
      'entry-exports-internal-node',
    ])
    expect(rulesBroken('src/rpc/x.ts', "import type { NodeParts } from '../node/types.js'")).toEqual(['node-parts-outside-node'])
    expect(rulesBroken('src/node/x.ts', "import type { NodeParts } from './types.js'")).toEqual([])
    expect(rulesBroken('src/index.ts', "import { type InternalNode as Node } from './node/node.js'\nexport type { Node }")).toEqual([
      'node-internals',
      'entry-exports-internal-node',
    ])
    expect(rulesBroken('src/index.ts', "export * from './node/types.js'")).toEqual(['entry-exports-internal-node'])
    expect(rulesBroken('src/index.ts', "import { type Node, createNode } from './node/node.js'\nexport type { Node }")).toEqual([])
  })

  it('an area without a rule is itself a break', () => {
    expect(rulesBroken('src/newthing/x.ts', "import { n } from '../node/node.js'")).toEqual(['unknown-area'])
  })
})

describe('architecture: the public node (Devnet.node) holds no writable part', () => {
  it('no internals, no time, a chain that cannot append, events that cannot emit (typed and at run time)', async () => {
    const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
    try {
      const node: Devnet['node'] = devnet.node
      // @ts-expect-error the writable parts are not on the public type: `npm run typecheck` fails if they come back
      expect(node.internals).toBeUndefined()
      // @ts-expect-error the time controls are reached through node operations only
      expect(node.time).toBeUndefined()
      // @ts-expect-error the write queue is the node's own
      expect(node.write).toBeUndefined()
      // At run time too, whatever the type says: the chain is a read-only facade, the events only listen.
      for (const [key, value] of Object.entries(node)) {
        expect(writablePartsMembers, key).not.toContain(key)
        if (typeof value === 'object' && value !== null) expect(Object.keys(value), key).not.toContain('internals')
      }
      for (const writer of ['append', 'appendStored', 'truncate', 'replaceHeadState', 'reattach', 'setForkchoice'])
        expect(writer in node.chain, writer).toBe(false)
      expect('emit' in node.events).toBe(false)
    } finally {
      await devnet.close()
    }
  })
})

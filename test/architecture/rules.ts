/**
 * devnet's layer rules as code: a small scanner for the module specifiers a
 * TypeScript file imports (import, export-from, dynamic import), and a checker
 * that maps each import of a file under src/ to the rules it breaks. The rules
 * are written out in docs/architecture.md; test/architecture.test.ts runs them
 * over src/ and over small synthetic inputs (so each rule is shown to fail).
 */
import { posix } from 'node:path'

/** Replaces comments by spaces (keeping strings and template literals), so a specifier in a comment is not read. */
export function stripComments(source: string): string {
  let out = ''
  let i = 0
  while (i < source.length) {
    const c = source[i]!
    const next = source[i + 1]
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end === -1 ? source.length : end + 2
      out += source.slice(i, stop).replace(/[^\n]/g, ' ')
      i = stop
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1
      out += source.slice(i, j + 1)
      i = j + 1
    } else {
      out += c
      i++
    }
  }
  return out
}

export type ImportRef = { specifier: string; line: number; typeOnly: boolean }

const patterns = [
  // import x from 'm', import { a } from 'm', import type ..., export { a } from 'm', export * from 'm'
  /\b(import|export)(\s+type)?\s[^'";]*?\bfrom\s*(['"])([^'"]+)\3/g,
  // import 'm' (side effect)
  /\bimport\s*(['"])([^'"]+)\1/g,
  // import('m'), await import("m")
  /\bimport\s*\(\s*(['"`])([^'"`]+)\1\s*\)/g,
]

/** The module specifiers `source` imports or re-exports, with their line. */
export function importsOf(source: string): ImportRef[] {
  const code = stripComments(source)
  const refs: ImportRef[] = []
  const lineAt = (index: number) => code.slice(0, index).split('\n').length
  for (const m of code.matchAll(patterns[0]!)) refs.push({ specifier: m[4]!, line: lineAt(m.index!), typeOnly: m[2] !== undefined })
  for (const m of code.matchAll(patterns[1]!)) refs.push({ specifier: m[2]!, line: lineAt(m.index!), typeOnly: false })
  for (const m of code.matchAll(patterns[2]!)) refs.push({ specifier: m[2]!, line: lineAt(m.index!), typeOnly: false })
  return refs.sort((a, b) => a.line - b.line)
}

/**
 * The area of a path under src/: its first folder (`evm`, `node`, `rpc`, ...)
 * or `index` for src/index.ts. Leaves are the modules every area may import.
 */
export function areaOf(path: string): string {
  const parts = path.split('/')
  if (parts[0] !== 'src') return 'outside'
  if (parts.length === 2) return parts[1]!.replace(/\.(ts|js)$/, '')
  return parts[1]!
}

/**
 * The layers, highest first. An area may import its own files, the leaves,
 * and the areas listed for it; nothing else under src/.
 */
export const layerRules: Record<string, { may: string[]; packages?: RegExp; why: string }> = {
  // Entry points: assemble everything.
  index: { may: ['devnet', 'server', 'rpc', 'node', 'evm', 'ui', 'payments', 'x402', 'client'], why: 'the package entry assembles the layers' },
  devnet: { may: ['index', 'server', 'rpc', 'node', 'evm', 'ui'], why: "the package entry's heavy half, loaded with import() once the socket listens" },
  cli: { may: ['index', 'server', 'rpc', 'node', 'evm', 'ui', 'payments', 'x402'], why: 'the command line assembles the layers' },
  testing: { may: ['index'], why: 'the test helpers use the package as a user does' },
  // server → rpc → node → evm
  server: { may: ['rpc', 'node'], why: 'transport: hands requests to rpc, creates the node' },
  ui: { may: ['server', 'rpc', 'payments'], why: 'a page served by the server, with its own rpc methods' },
  rpc: { may: ['node'], why: 'decodes, calls the node, encodes; never the engine' },
  node: { may: ['evm'], why: 'the chain; the engine behind a small interface' },
  evm: { may: [], why: 'the engine: @ethereumjs and its speedups' },
  // Over JSON-RPC only (viem), never the node in process.
  payments: {
    may: [],
    packages: /^(viem(\/.*)?|node:.*)$/,
    why: 'a client library: talks to devnet only over JSON-RPC',
  },
  client: {
    may: [],
    packages: /^viem(\/.*)?$/,
    why: 'viem actions for devnet methods: over JSON-RPC only',
  },
  x402: {
    may: ['payments'],
    packages: /^(viem(\/.*)?|node:.*)$/,
    why: 'a facilitator: talks to devnet only over JSON-RPC, through payments',
  },
}

/** Modules every area may import: errors, the config (its types, defaults and predeploy addresses), the compiled contracts. */
export const leafAreas = ['errors', 'config', 'artifacts']

/** What payments may import under src/ besides its own files: the contracts, the errors, the predeploy addresses. */
const paymentsLeaves = (target: string) =>
  target.startsWith('src/artifacts/') || target.startsWith('src/errors/') || target === 'src/config/predeploys.ts'

export type Violation = { file: string; line: number; rule: string; detail: string }

/** `from`'s import of `specifier` resolved to a path under the repository (src/...), or undefined for a package. */
export function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts')
}

/** Every rule `file` (a path under src/, with its source) breaks. */
export function checkFile(file: string, source: string): Violation[] {
  const area = areaOf(file)
  const violations: Violation[] = []
  const add = (line: number, rule: string, detail: string) => violations.push({ file, line, rule, detail })
  for (const { specifier, line } of importsOf(source)) {
    const target = resolveImport(file, specifier)
    if (target === undefined) {
      if (specifier.startsWith('@ethereumjs/') && area !== 'evm') add(line, 'ethereumjs-outside-engine', specifier)
      const packages = layerRules[area]?.packages
      if (packages !== undefined && !packages.test(specifier)) add(line, `${area}-packages`, specifier)
      continue
    }
    const to = areaOf(target)
    if (to === area) continue
    if (area === 'payments') {
      if (!paymentsLeaves(target)) add(line, 'payments-isolated', target)
      continue
    }
    if (leafAreas.includes(area)) {
      if (!leafAreas.includes(to)) add(line, 'leaf-imports-leaf', target)
      continue
    }
    if (leafAreas.includes(to)) continue
    const rule = layerRules[area]
    if (rule === undefined) add(line, 'unknown-area', `${area} has no rule in test/architecture/rules.ts`)
    else if (!rule.may.includes(to)) add(line, 'layer-direction', `${area} -> ${to} (${target})`)
  }
  if (area === 'rpc') {
    const code = stripComments(source)
    for (const m of code.matchAll(/\.internals\b|\bInternalNode\b/g))
      add(code.slice(0, m.index).split('\n').length, 'rpc-node-internals', m[0])
  }
  return violations
}

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
  devnet: { may: ['index', 'server', 'rpc', 'node', 'evm', 'ui', 'client'], why: "the package entry's heavy half, loaded with import() once the socket listens" },
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

/**
 * The engine's one entry. Code outside src/evm imports values only from it
 * (type-only imports of other engine files are fine: they leave no import in
 * the JavaScript), so that the build can bundle it with a private copy of
 * @ethereumjs (scripts/engineBundle.mjs) that no other file of dist/ bypasses.
 */
export const engineEntry = 'src/evm/engine.ts'

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
  for (const { specifier, line, typeOnly } of importsOf(source)) {
    const target = resolveImport(file, specifier)
    if (target === undefined) {
      if (specifier.startsWith('@ethereumjs/') && area !== 'evm') add(line, 'ethereumjs-outside-engine', specifier)
      const packages = layerRules[area]?.packages
      if (packages !== undefined && !packages.test(specifier)) add(line, `${area}-packages`, specifier)
      continue
    }
    const to = areaOf(target)
    if (to === area) continue
    if (to === 'evm' && target !== engineEntry && !typeOnly) add(line, 'engine-entry', target)
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
  const code = stripComments(source)
  const lineOf = (index: number) => code.slice(0, index).split('\n').length
  if (area === 'rpc')
    for (const m of code.matchAll(/\.internals\b|\bInternalNode\b/g)) add(lineOf(m.index), 'rpc-node-internals', m[0])
  // Anywhere: reaching through a node to its writable parts, or naming the internal node type.
  for (const m of code.matchAll(nodeInternalsAccess)) add(lineOf(m.index), 'node-internals', m[0].replace(/\s+/g, ' '))
  // A node type (Node, or one extending it) declaring the writable parts as members.
  for (const { member, index } of nodeTypeMembers(code))
    if (writablePartsMembers.includes(member)) add(lineOf(index), 'node-internals', `Node.${member}`)
  // The node module's factory with parts is for src/node and tests only.
  if (area !== 'node')
    for (const m of code.matchAll(/\b(createNodeWithParts|NodeParts)\b/g)) add(lineOf(m.index), 'node-parts-outside-node', m[0])
  if (entryPoints.includes(file)) {
    for (const m of code.matchAll(/\b(InternalNode|NodeParts|createNodeWithParts|internals)\b/g))
      add(lineOf(m.index), 'entry-exports-internal-node', m[0])
    for (const ref of importsOf(source)) {
      const target = resolveImport(file, ref.specifier)
      if (target?.startsWith('src/node/') && new RegExp(`export\\s*\\*\\s*from\\s*['"]${escape(ref.specifier)}['"]`).test(code))
        add(ref.line, 'entry-exports-internal-node', `export * from ${ref.specifier}`)
    }
  }
  return violations
}

/** The package's entry points (package.json `exports`): what a user can import. */
export const entryPoints = ['src/index.ts', 'src/testing/vitest.ts', 'src/testing/prool.ts', 'src/payments/index.ts', 'src/x402/index.ts']

/** Members a node type must not declare: the writable parts and their old names (issue 13). */
export const writablePartsMembers = ['internals', 'time', 'parts']

/** `node.internals`, `devnet.node.time`, `{ internals } = node`, and the old internal node type. */
const nodeInternalsAccess =
  /\b\w*[nN]ode\s*\??\.\s*(internals|time|parts)\b|\{[^{}]*\b(internals|parts)\b[^{}]*\}\s*=\s*[\w.]*\b[nN]ode\b|\bInternalNode\b/g

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The top-level members of every `interface Node { … }`, and of every
 * interface or type extending Node (`interface X extends Node { … }`,
 * `type X = Node & { … }`), with their index in `code`.
 */
export function nodeTypeMembers(code: string): { member: string; index: number }[] {
  const out: { member: string; index: number }[] = []
  const heads = /\binterface\s+Node\s*\{|\binterface\s+\w+\s+extends\s+[^{]*\bNode\b[^{]*\{|\btype\s+\w+\s*=\s*Node\s*&\s*\{/g
  for (const head of code.matchAll(heads)) {
    let depth = 1
    let lineStart = head.index + head[0].length
    for (let i = lineStart; i < code.length; i++) {
      const c = code[i]!
      // A member's name is what stands between the last separator and its first `:`, `?`, `(` or `<`.
      if (depth === 1 && ':?(<'.includes(c)) {
        const name = /^\s*(?:readonly\s+)?(\w+)\s*\??$/.exec(code.slice(lineStart, i))
        if (name && out[out.length - 1]?.index !== lineStart) out.push({ member: name[1]!, index: lineStart })
      }
      if ('{([<'.includes(c)) depth++
      else if ('})]'.includes(c) || (c === '>' && code[i - 1] !== '=')) {
        if (--depth === 0) break
      } else if (depth === 1 && '\n;,'.includes(c)) lineStart = i + 1
    }
  }
  return out
}

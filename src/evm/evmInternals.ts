/**
 * The files of @ethereumjs/evm that its package `exports` keep private (the
 * interpreter, the opcode tables, ...), loaded from beside the package's own
 * entry so that what the speedups patch is the very code the EVM runs.
 *
 * The one place devnet reaches into the package. scripts/engineBundle.mjs
 * replaces this module in the bundles (the CLI's and the library's engine)
 * with static imports of the same files, read from the `evmFiles` table below
 * (a bundle must patch its own copies, and the CLI's is a script, without
 * top-level await): keep the table a plain literal of `name: './path.js'` entries.
 */
const evmFiles = {
  interpreter: './interpreter.js',
  evm: './evm.js',
  functions: './opcodes/functions.js',
  gas: './opcodes/gas.js',
  eip2929: './opcodes/EIP2929.js',
  eip7928: './opcodes/EIP7928.js',
  eip2200: './opcodes/EIP2200.js',
  memory: './memory.js',
  precompiles: './precompiles/index.js',
  journal: './journal.js',
  stack: './stack.js',
  util: './opcodes/util.js',
} as const

const base = import.meta.resolve('@ethereumjs/evm')
const loaded = await Promise.all(Object.values(evmFiles).map((file) => import(new URL(file, base).href)))

/** Each private module of the EVM by its name in `evmFiles`, untyped: each user states the shape it relies on. */
export const evmInternals = Object.fromEntries(Object.keys(evmFiles).map((name, i) => [name, loaded[i]])) as Record<
  keyof typeof evmFiles,
  Record<string, unknown>
>

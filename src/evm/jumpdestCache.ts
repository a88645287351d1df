import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/*
 * A cache of ethereumjs's jump-destination analysis, applied once to every
 * EVM in the process when this module loads.
 *
 * The interpreter analyses a contract's whole bytecode (valid JUMPDESTs, PUSH
 * immediates, the opcode of every byte) each time a frame runs code with a
 * jump, a tenth of the time of a token transfer. geth caches it per code
 * hash. The result depends only on the code and the EVM's opcode table (its
 * fork), and the state caches hand out the same code array for the same
 * contract, so it is cached per opcode table and code array; new arrays
 * (other code, or code re-read from the database) are analysed as before.
 */

// The interpreter is not among @ethereumjs/evm's exports; it is the module the package's own EVM imports.
const require = createRequire(import.meta.url)
const evmEntry = require.resolve('@ethereumjs/evm')
const interpreterUrl = pathToFileURL(join(dirname(evmEntry).replace(/[/\\]cjs$/, '/esm'), 'interpreter.js')).href
const { Interpreter } = (await import(interpreterUrl)) as { Interpreter: { prototype: object } }

type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
const prototype = Interpreter.prototype as unknown as {
  _getValidJumpDestinations(code: Uint8Array): Analysis
  _evm: { _opcodeMap: object }
  __devnetJumpdestCache?: boolean
}

if (!prototype.__devnetJumpdestCache) {
  const original = prototype._getValidJumpDestinations
  const byTable = new WeakMap<object, WeakMap<Uint8Array, Analysis>>()
  prototype._getValidJumpDestinations = function (this: typeof prototype, code) {
    const table = this._evm._opcodeMap
    let byCode = byTable.get(table)
    if (byCode === undefined) byTable.set(table, (byCode = new WeakMap()))
    let analysis = byCode.get(code)
    if (analysis === undefined) byCode.set(code, (analysis = original.call(this, code)))
    return analysis
  }
  prototype.__devnetJumpdestCache = true
}

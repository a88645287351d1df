/**
 * Run in a fresh process by test/engine/isolation.test.ts: what importing
 * devnet (its entry and devnet/vitest) and then creating a devnet and sending
 * a transaction changes in the host's own @ethereumjs and RLP. Prints JSON.
 *
 * `probe.ts [DIST]`: without DIST, devnet from source (src/, the engine and
 * @ethereumjs shared with the host); with DIST, the built package (DIST/index.js,
 * DIST/testing/vitest.js), whose engine (DIST/evm/engine.js) carries its own
 * @ethereumjs: `engine` then tells whether devnet's patches reached that copy.
 */
import { Common } from '@ethereumjs/common'
import { EVM } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTx } from '@ethereumjs/tx'
import { VM } from '@ethereumjs/vm'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

const dist = process.argv[2]
const fromDist = (file: string) => pathToFileURL(join(dist!, file)).href
const entry = dist ? fromDist('index.js') : '../../../src/index.js'
const vitestEntry = dist ? fromDist('testing/vitest.js') : '../../../src/testing/vitest.js'

/** Every own method of the prototypes devnet's patches touch, by identity, and the RLP functions. */
const watched = { Common, EVM, MerkleStateManager, VM } as Record<string, { prototype: object }>
const references = () => {
  const found: Record<string, unknown> = { 'RLP.encode': RLP.encode, 'RLP.decode': RLP.decode, createTx }
  for (const [name, cls] of Object.entries(watched))
    for (const key of Object.getOwnPropertyNames(cls.prototype))
      found[`${name}.prototype.${key}`] = Object.getOwnPropertyDescriptor(cls.prototype, key)?.value
  return found
}
const before = references()
const changedReferences = () => {
  const now = references()
  return [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((k) => before[k] !== now[k])
}

await import(entry)
await import(vitestEntry)
const { checkFingerprints, enginePatches } = await import('../../../src/evm/patches/registry.js')
// The host's library code as it is now, against the fingerprints of the pristine upstream.
const changed = () => checkFingerprints(enginePatches, (patch) => patch.upstream().map((fn) => String(fn))).map((m) => m.id)
// The built engine's own RLP (devnet's private copy), which the process-scoped patch `rlp-encode` replaces.
const engine = dist ? ((await import(fromDist('evm/engine.js'))) as { RLP: { encode: unknown } }) : undefined
const engineEncode = engine?.RLP.encode

const afterImport = { patches: changed(), references: changedReferences() }
const { createDevnet } = (await import(entry)) as typeof import('../../../src/index.js')
const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const hash = await devnet.request({
  method: 'eth_sendTransaction',
  params: [{ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: '0x1' }],
})
await devnet.seal()
const receipt = (await devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { status: string } | null
await devnet.close()
const afterCreate = { patches: changed(), references: changedReferences() }
const engineRlpPatched = engine ? engine.RLP.encode !== engineEncode : undefined

// An error class crossing the engine's boundary has one copy: a genesis the engine refuses (its ChainImportError)
// is recognised by the package entry, which names the file, and is a DevnetError of the package's errors.
const { ChainImportError } = (await import(dist ? fromDist('evm/engine.js') : '../../../src/evm/engine.js')) as typeof import('../../../src/evm/engine.js')
const { DevnetError } = (await import(dist ? fromDist('errors/base.js') : '../../../src/errors/base.js')) as typeof import('../../../src/errors/base.js')
const genesisFile = join(mkdtempSync(join(tmpdir(), 'devnet-isolation-')), 'genesis.json')
writeFileSync(genesisFile, JSON.stringify({ config: { chainId: 1337 }, number: '0x5', alloc: {} }))
const refused = await createDevnet({ genesis: genesisFile, quiet: true }).then(
  (d) => d.close().then(() => undefined),
  (error: unknown) => error,
)
rmSync(dirname(genesisFile), { recursive: true, force: true })
const crossing = {
  message: refused instanceof Error ? refused.message.replace(genesisFile, '<file>') : String(refused),
  chainImportError: refused instanceof ChainImportError,
  devnetError: refused instanceof DevnetError,
  causeChainImportError: refused instanceof Error && refused.cause instanceof ChainImportError,
}
console.log(JSON.stringify({ afterImport, afterCreate, status: receipt?.status, engineRlpPatched, crossing }))

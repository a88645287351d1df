import { createHash } from 'node:crypto'
import { Block, BlockHeader, createBlock, createBlockHeader } from '@ethereumjs/block'
import { BlockBuilder, Bloom, runTx } from '@ethereumjs/vm'
import { Common } from '@ethereumjs/common'
import { EVM, NobleBLS, NobleBN254 } from '@ethereumjs/evm'
import { BranchMPTNode, CheckpointDB, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { AccountCache, CodeCache, MerkleStateManager, OriginalStorageCache, StorageCache } from '@ethereumjs/statemanager'
import { AccessList2930Tx, Blob4844Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from '@ethereumjs/tx'
import { Account, Address, MapDB, bytesToBigInt, ecrecover, toType } from '@ethereumjs/util'
import { applyAccountMemo } from '../accountMemo.js'
import { applyEcrecoverPrecompile } from '../ecrecoverPrecompile.js'
import { applyFramePatches } from '../evmFrames.js'
import { applyForkState, forkStateUpstream } from '../forkState.js'
import { applyHexKeys } from '../hexKeys.js'
import { evmInternals } from '../evmInternals.js'
import { applyFrameMemory } from '../frameMemory.js'
import { applyInterpreterLoop } from '../interpreterLoop.js'
import { applyJournalCleanup } from '../journalCleanup.js'
import { applyJournalWarm } from '../journalWarm.js'
import { applyKeccakMemo } from '../keccakMemo.js'
import { applyNumberGas } from '../numberGas.js'
import { applyOpcodeHandlers } from '../opcodeHandlers.js'
import { applySelfdestructObserver } from '../opcodeObserver.js'
import { applyRlpEncode } from '../rlpEncode.js'
import { systemWritesUpstream } from '../systemWrites.js'
import { applySenderAddressMemo } from '../senderAddress.js'
import { applySerializedMemo } from '../serializedMemo.js'
import { applyJumpDestinationMemo } from '../speedups.js'
import { applyPutStorage } from '../statePatches.js'
import { applySyncGasHandlers } from '../syncGasHandlers.js'
import { applyTrieCheckpoints } from '../trieCheckpoints.js'
import { applyTrieDbReadMemo, applyTrieReadMemo } from '../trieReadMemo.js'
import { applyTrieNodeCodec } from '../trieNodeCodec.js'
import { applyFlatMapDbStrings, applyTrieCopyEncoding } from '../trieStorage.js'
import { knownEips } from './knownEips.js'

/**
 * Every place where devnet's engine replaces code of @ethereumjs 10.1.3, in
 * one list: what it replaces, why (the gain measured when it was written),
 * and a fingerprint of the upstream code it was written against.
 *
 * The fingerprint is the sha256 of the upstream functions' (or classes')
 * source text, `String(fn)`, joined in the order `upstream` lists them. When
 * @ethereumjs is upgraded and any of those functions changes, the engine
 * refuses to start and names the patches to review (or runs stock with
 * DEVNET_ENGINE=stock): a replacement is only known to compute what the code
 * it replaces computed, not what a newer version computes.
 *
 * Two scopes:
 * - `process`: applied to the library's prototypes and tables once, by
 *   `installEngine()`, which the engine's entry points call (createDevCommon,
 *   createStateManager, ...): never when a module is imported.
 * - `instance`: applied by devnet's own code to its own objects (a state
 *   manager, a VM, a block builder) or a code path of its own that stands in
 *   for a library call; the call site asks `patchActive(id)` first.
 *
 * - `build`: applied to the text of a library module when the CLI bundle
 *   (dist/bundle/cli.cjs, scripts/bundle.mjs) is made, for work the module
 *   does when it is evaluated, before any run-time patch could reach it.
 *   The build refuses to bundle when the text it rewrites is not found; the
 *   fingerprint covers the functions that read what it changes. It changes
 *   no result, so it is in effect in both engine modes of the CLI; the
 *   library's engine (dist/evm/engine.js) and the source do not have it.
 *   Its test compares the rewritten module with the published one over
 *   every input whose path it changes (test/bundle/buildPatches.test.ts).
 *
 * A process patch marked `lazy` is not applied by `installEngine()` but by
 * `applyLazyPatch(id)`, when devnet first needs it (the fork mode's state
 * reads, when a fork opens), after the same fingerprint check. One that is a
 * feature rather than a speedup (`feature`) is applied in stock mode too: the
 * fork mode cannot work without it.
 *
 * DEVNET_ENGINE=stock installs nothing (but a lazy feature patch when asked) and turns every instance patch off: the
 * node runs the library as published, slower, and the differential suite
 * (test/engine) compares the two.
 *
 * `scripts/patch-fingerprints.ts` prints the current fingerprints (after an
 * upgrade, once each patch has been reviewed against the new source).
 */

export type EnginePatch = {
  /** Stable name, used in errors and by `patchActive`. */
  id: string
  /** What it replaces, as `package: symbol`. */
  replaces: string[]
  /** Why it exists: the cost it removes, as measured when it was written. */
  why: string
  /** Where the replacement lives. */
  file: string
  scope: 'process' | 'instance' | 'build'
  /** The upstream functions or classes the replacement was written against, read from the installed library. */
  upstream: () => unknown[]
  /** sha256 (hex) of the upstream sources at @ethereumjs 10.1.3. */
  fingerprint: string
  /** For `process` patches: installs it. */
  apply?: () => void
  /** Applied by applyLazyPatch(id) when first needed, not by installEngine(). */
  lazy?: boolean
  /** A feature, not a speedup: applied (when asked) in stock mode too. */
  feature?: boolean
}

const interpreter = () => (evmInternals.interpreter as { Interpreter: { prototype: Record<string, unknown> } }).Interpreter
const handlers = () => (evmInternals.functions as { handlers: Map<number, unknown> }).handlers
const gasHandlers = () => (evmInternals.gas as { dynamicGasHandlers: Map<number, unknown> }).dynamicGasHandlers
const ecrecoverEntry = () =>
  (evmInternals.precompiles as { precompileEntries: { address: string; precompile: unknown }[] }).precompileEntries.find(
    (e) => e.address === `${'00'.repeat(19)}01`,
  )?.precompile
const p256Entry = () =>
  (evmInternals.precompiles as { precompileEntries: { address: string; precompile: unknown }[] }).precompileEntries.find(
    (e) => e.address === `${'00'.repeat(18)}0100`,
  )?.precompile
const Journal = () => (evmInternals.journal as { Journal: { prototype: unknown } }).Journal
const txClasses = [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx]
const proto = (c: { prototype: unknown }) => c.prototype as Record<string, unknown>

export const enginePatches: readonly EnginePatch[] = [
  {
    id: 'interpreter-loop',
    replaces: ['@ethereumjs/evm: Interpreter.prototype.run'],
    why: 'ethereumjs awaits two or three promises per opcode (runStep, the gas handler); on a token balanceOf (136 opcodes) that machinery cost more than the opcodes. The loop awaits only what returns a promise.',
    file: 'src/evm/interpreterLoop.ts',
    scope: 'process',
    upstream: () => [interpreter().prototype.run, interpreter().prototype.runStep],
    fingerprint: '53cffbf85e1787f5866dacbe9525a33e84962ad2a94793000278070aebe577f9',
    apply: applyInterpreterLoop,
  },
  {
    id: 'jump-destination-memo',
    replaces: ['@ethereumjs/evm: Interpreter.prototype._getValidJumpDestinations'],
    why: 'The whole bytecode was scanned for JUMPDESTs at the first jump of every frame: most of a balanceOf on the ~20 kB token (with the EIP set below, ~30 % of eth_call).',
    file: 'src/evm/speedups.ts',
    scope: 'process',
    upstream: () => [interpreter().prototype._getValidJumpDestinations],
    fingerprint: '92d44fb4b3473f66f75decf47aca83ad80f8260353ceb7ff6bcff4da77508dc0',
    apply: applyJumpDestinationMemo,
  },
  {
    id: 'eip-set',
    replaces: ['@ethereumjs/common: Common.prototype.isActivatedEIP (own property of devnet\'s Commons)'],
    why: 'Array.includes over ~80 EIP numbers, several times per opcode; a Set of the same array answers the same.',
    file: 'src/evm/speedups.ts',
    scope: 'instance',
    upstream: () => [Common.prototype.isActivatedEIP, proto(Common)._buildActivatedEIPsCache],
    fingerprint: '0641b1354a484e3819a871a235e8312ac23d710a8b3de2af25e238b16cdcb24a',
  },
  {
    id: 'call-frames',
    replaces: ['@ethereumjs/evm: EVM.prototype._executeCall', '@ethereumjs/evm: EVM.prototype.runInterpreter'],
    why: 'Each frame copied its message and result through object spreads (V8 slow path): a tenth of a token eth_call.',
    file: 'src/evm/evmFrames.ts',
    scope: 'process',
    upstream: () => [proto(EVM)._executeCall, proto(EVM).runInterpreter],
    fingerprint: '650139c69ae08aa69262e1f1bee7f3d36cb10c0552d91043f3928f70ee855299',
    apply: applyFramePatches,
  },
  {
    id: 'frame-memory',
    replaces: ['@ethereumjs/evm: Memory.prototype.extend', '@ethereumjs/evm: new Interpreter (constructor, via createInterpreter)'],
    why: 'new Memory() zero-filled 8 kB per frame (~3.5 µs with its GC) where a token call touches a few hundred bytes. A small memory is a region of a shared zero-filled slab: its own 1 kB ArrayBuffer (outside the JS heap) still cost ~3 % of a 100-call eth_simulateV1, more than the loop; ~0.4 % as slab regions (CPU profile, in-process, loaded).',
    file: 'src/evm/frameMemory.ts',
    scope: 'process',
    upstream: () => [
      (evmInternals.memory as { Memory: { prototype: Record<string, unknown> } }).Memory.prototype.extend,
      (evmInternals.memory as { Memory: unknown }).Memory,
      interpreter(),
    ],
    fingerprint: '55ba39de4c5e3f7c1c1cd0a52cbad15c34e68377b02a21e3de29731b1d4a76d8',
    apply: applyFrameMemory,
  },
  {
    id: 'opcode-handlers',
    replaces: [
      '@ethereumjs/evm: handlers MSTORE (0x52), MLOAD (0x51), CALLDATALOAD (0x35), SLOAD (0x54), SSTORE (0x55), LOG0-LOG4 (0xa0-0xa4)',
      '@ethereumjs/evm: dynamicGasHandlers SLOAD (0x54), SSTORE (0x55)',
    ],
    why: 'Stack words went to bytes through a hex string and setLengthLeft\'s array spreads: a few per cent of a token call. MSTORE writes from a scratch word (no array per store) and words below 2^64 skip the shifts: word32 2.6 % -> 1.1 % of a 100-call eth_simulateV1 (CPU profile). The LOG handlers also tell an opcode observer (opcodeObserver.ts) where they ran, for traceTransfers without a step listener. On a view\'s state (eth_call, eth_simulateV1) SLOAD, SSTORE\'s gas and SSTORE answer a slot or account its caches hold without a promise (three or four async functions per access before): with trie-checkpoints ~0.95x the CPU of a 100-call eth_simulateV1 (paired A/B, both orders, loaded).',
    file: 'src/evm/opcodeHandlers.ts',
    scope: 'process',
    upstream: () => [
      ...[0x52, 0x51, 0x35, 0x54, 0x55, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4].map((op) => handlers().get(op)),
      gasHandlers().get(0x54),
      gasHandlers().get(0x55),
      (evmInternals.eip2200 as { updateSstoreGasEIP2200: unknown }).updateSstoreGasEIP2200,
      (evmInternals.eip2929 as { accessStorageEIP2929: unknown }).accessStorageEIP2929,
    ],
    fingerprint: '6a63b4c0fa1afe2380ec050aa098b179014147abbce00b923b26780ae0ac7add',
    apply: applyOpcodeHandlers,
  },
  {
    id: 'number-gas',
    replaces: [
      '@ethereumjs/evm: Interpreter runState.gasLeft (a bigint field; in frames built by createInterpreter an accessor over a number)',
      '@ethereumjs/evm: Interpreter.prototype.useGas',
    ],
    why: 'Each opcode subtracted its fee from a bigint gasLeft (a new heap bigint per opcode, ~240 per token transfer). A frame holds its gas as a number behind a gasLeft accessor, exact beyond 2^53 through the library\'s useGas. With sync-gas-handlers and the loop awaiting promises itself: a 100-transfer eth_simulateV1 allocates 13.0 MB instead of 17.0 MB (in-process, steady state).',
    file: 'src/evm/numberGas.ts',
    scope: 'process',
    upstream: () => [interpreter().prototype.useGas, interpreter()],
    fingerprint: '150276c0a0b86b462cf6794cc7121068b2a6c7c76ba6266e6fd47deec6fb67f8',
    apply: applyNumberGas,
  },
  {
    id: 'sync-gas-handlers',
    replaces: [
      '@ethereumjs/evm: dynamicGasHandlers EXP (0x0a), KECCAK256 (0x20), CALLDATACOPY (0x37), CODECOPY (0x39), RETURNDATACOPY (0x3e), MLOAD (0x51), MSTORE (0x52), MSTORE8 (0x53), MCOPY (0x5e), LOG0-LOG4 (0xa0-0xa4), RETURN (0xf3), REVERT (0xfd)',
    ],
    why: 'Every dynamic gas handler is an async function: each MSTORE, MLOAD, KECCAK256, LOG, RETURN handed the interpreter loop a promise to await (~17 per token transfer) for a few additions. Plain functions return the same bigints and throw the same errors. Measured with number-gas (see there).',
    file: 'src/evm/syncGasHandlers.ts',
    scope: 'process',
    upstream: () => [
      ...[0x0a, 0x20, 0x37, 0x39, 0x3e, 0x51, 0x52, 0x53, 0x5e, 0xa0, 0xf3, 0xfd].map((op) => gasHandlers().get(op)),
      (evmInternals.util as { subMemUsage: unknown }).subMemUsage,
      (evmInternals.util as { divCeil: unknown }).divCeil,
      (evmInternals.stack as { Stack: { prototype: Record<string, unknown> } }).Stack.prototype.peek,
    ],
    fingerprint: 'ff8d42d4db242378aee414038445d3f3258717bcb0ccd4cab8f4d96dcddf92e9',
    apply: applySyncGasHandlers,
  },
  {
    id: 'opcode-observer',
    replaces: ['@ethereumjs/evm: handlers SELFDESTRUCT (0xff)'],
    why: 'eth_simulateV1 traceTransfers placed its logs with a step listener, which builds an event per opcode and leaves the fast interpreter loop: a traced token transfer cost ~1.5x an untraced one (simtrace 1.45 -> 0.89 ms CPU in-process). SELFDESTRUCT tells the observer its payout, then runs the library\'s handler.',
    file: 'src/evm/opcodeObserver.ts',
    scope: 'process',
    upstream: () => [handlers().get(0xff)],
    fingerprint: '58198c1e075fca1b0a9a08b5c0c0dea26196037fb84e510cba264398bf25a241',
    apply: applySelfdestructObserver,
  },
  {
    id: 'keccak-memo',
    replaces: ['@ethereumjs/evm: handlers KECCAK256 (0x20)', '@ethereumjs/vm: Bloom.prototype.add'],
    why: 'Every token call hashes the same mapping slots and every receipt the same address and topic; a memo lookup costs a fraction of a keccak. Its keys come from Node\'s native hex encoder (a rope built a byte at a time was ~4 % of what a 100-call eth_simulateV1 allocated).',
    file: 'src/evm/keccakMemo.ts',
    scope: 'process',
    upstream: () => [handlers().get(0x20), proto(Bloom).add],
    fingerprint: '22da3196fb5824e8ac712a9d9f18c660048e34f3b8e8922128dbe8177ea3b9f2',
    apply: applyKeccakMemo,
  },
  {
    id: 'rlp-encode',
    replaces: ['@ethereumjs/rlp: RLP.encode'],
    why: 'The library allocated a dozen arrays per item (length prefixes through hex strings, variadic concatBytes): a tenth of eth_simulateV1, a twentieth of eth_call. One measured allocation instead.',
    file: 'src/evm/rlpEncode.ts',
    scope: 'process',
    upstream: () => [RLP.encode],
    fingerprint: '29ea5ebf4f9afd851fe1984771fd54f687cd35bbfd038ccf47e3ca07c23c44ef',
    apply: applyRlpEncode,
  },
  {
    id: 'journal-warm',
    replaces: ['@ethereumjs/evm: Journal.prototype.addAlwaysWarmAddress', '@ethereumjs/evm: Journal.prototype.addAlwaysWarmSlot'],
    why: 'A hex regular expression per warmed address (17 precompiles, sender, recipient, coinbase per call): ~2 % of a token balanceOf. A new empty Set per warmed address: ~20 per call, shared since (isWarmedStorage and cleanJournal, in the fingerprint, only read or drop them).',
    file: 'src/evm/journalWarm.ts',
    scope: 'process',
    upstream: () => {
      const { Journal } = evmInternals.journal as { Journal: { prototype: Record<string, unknown> } }
      return [Journal.prototype.addAlwaysWarmAddress, Journal.prototype.addAlwaysWarmSlot, Journal.prototype.isWarmedStorage, Journal.prototype.cleanJournal]
    },
    fingerprint: '9ddc77b32b687c711d2b1b5679f1f0432565762b4c60905d44a862e8ac9dea8a',
    apply: applyJournalWarm,
  },
  {
    id: 'journal-cleanup',
    replaces: ['@ethereumjs/evm: Journal.prototype.cleanup'],
    why: 'Each touched address parsed back from its hex key through hexToBytes (a regular expression, a character pair at a time) and the hardfork list walked, twice per transaction: ~2 % of a 100-call eth_simulateV1 (CPU profile: cleanup 2.5 % inclusive, hexToBytes 1.4 %, gteHardfork 0.45 %).',
    file: 'src/evm/journalCleanup.ts',
    scope: 'process',
    upstream: () => [proto(Journal()).cleanup],
    fingerprint: '92a0d1255c446dc4de3a35e417359b5c9baec330732d5a71ba11abd7014ce72c',
    apply: applyJournalCleanup,
  },
  {
    id: 'hex-keys',
    replaces: [
      '@ethereumjs/statemanager: OriginalStorageCache.prototype.get, put',
      '@ethereumjs/evm: Journal.prototype.touchAddress, isWarmedAddress, addWarmedAddress, isWarmedStorage, addWarmedStorage',
      '@ethereumjs/util: Address.prototype.toString',
    ],
    why: 'Keys as the hex of their bytes built two characters at a time (Node 20 has no Uint8Array.toHex): a 32- to 64-cell rope per key, flattened by the Map lookup after it, several per SLOAD/SSTORE and account touch. Node\'s native hex encoder gives the same string; the last four 20-byte keys (addresses) are answered from a small memo by content (~0.96x the CPU of a 100-call eth_simulateV1, paired A/B both orders, loaded). With keyed-caches: a 100-call eth_simulateV1 of token transfers 0.69-0.72x the CPU per request (paired in-process A/B, loaded machine), GC time -35 %.',
    file: 'src/evm/hexKeys.ts',
    scope: 'process',
    upstream: () => {
      const { Journal } = evmInternals.journal as { Journal: { prototype: Record<string, unknown> } }
      const j = Journal.prototype
      return [
        proto(OriginalStorageCache).get,
        proto(OriginalStorageCache).put,
        j.touchAddress,
        j.isWarmedAddress,
        j.addWarmedAddress,
        j.isWarmedStorage,
        j.addWarmedStorage,
        proto(Address).toString,
      ]
    },
    fingerprint: '3b41ba2d499edff2bd73c4aa7e6677b0aa0fa62836aff2b953d34640b9140671',
    apply: applyHexKeys,
  },
  {
    id: 'ecrecover-precompile',
    replaces: ['@ethereumjs/evm: precompile 0x01 (ECRECOVER)'],
    why: 'Padding through setLengthRight/setLengthLeft spreads, v through a hex string and the pure-JS keccak: about half the precompile\'s time beside the recovery itself (every EIP-3009 authorization and permit).',
    file: 'src/evm/ecrecoverPrecompile.ts',
    scope: 'process',
    upstream: () => [ecrecoverEntry()],
    fingerprint: '929a02cbc3cce23db727f50f200cd6dde501c2adb4aadf868114fc98baf62448',
    apply: applyEcrecoverPrecompile,
  },
  {
    id: 'storage-cache-write',
    replaces: ['@ethereumjs/statemanager: MerkleStateManager.prototype.putStorage'],
    why: 'A bug: `cache.put(...) ?? writeTrie(...)` wrote every SSTORE through to the storage trie (hashing and database writes per slot), the most expensive step of a storage-touching transaction.',
    file: 'src/evm/statePatches.ts',
    scope: 'process',
    upstream: () => [proto(MerkleStateManager).putStorage],
    fingerprint: '0f12e682615703b05eca1b944e527fd57e99624c7825c70a0d835b4d13b17e3e',
    apply: applyPutStorage,
  },
  {
    id: 'account-memo',
    replaces: ['@ethereumjs/util: Account.prototype.serialize', '@ethereumjs/statemanager: MerkleStateManager.prototype.getAccount'],
    why: 'Each cached account was decoded from RLP on every read (an ETH transfer reads its accounts ~10 times): ~5 % of its CPU.',
    file: 'src/evm/accountMemo.ts',
    scope: 'process',
    upstream: () => [proto(Account).serialize, proto(MerkleStateManager).getAccount],
    fingerprint: '0ee17794b140ace250ee2f162174f80f9f691512f224afaf6a949ebb6cf05573',
    apply: applyAccountMemo,
  },
  {
    id: 'trie-read-memo',
    replaces: ['@ethereumjs/mpt: MerklePatriciaTrie.prototype.get'],
    why: 'Reverted checkpoints (every eth_call, eth_simulateV1) forgot every read: each request walked the trie again (~0.1 ms per read). A read at a root never changes.',
    file: 'src/evm/trieReadMemo.ts',
    scope: 'process',
    upstream: () => [proto(MerklePatriciaTrie).get],
    fingerprint: 'feaff5657fc21b11e0814e220061b4728d53ca5e502a7beda7e9625678a81b24',
    apply: applyTrieReadMemo,
  },
  {
    id: 'trie-db-read-memo',
    replaces: ['@ethereumjs/mpt: CheckpointDB.prototype.get'],
    why: 'Hex-stored values were decoded into a new array on every read; keeps code the same array for the jump-destination memo.',
    file: 'src/evm/trieReadMemo.ts',
    scope: 'process',
    upstream: () => [proto(CheckpointDB).get],
    fingerprint: 'cb0123b741ef51da434902a2cf31d320781bdd433aed6ab0991c773996f1e4e3',
    apply: applyTrieDbReadMemo,
  },
  {
    id: 'trie-node-codec',
    replaces: ['@ethereumjs/mpt: MerklePatriciaTrie.prototype.lookupNode', '@ethereumjs/mpt: BranchMPTNode.prototype.serialize'],
    why: 'Encoding a branch built 18 arrays, decoding copied each item again: about a sixth of executing and sealing a block of transfers.',
    file: 'src/evm/trieNodeCodec.ts',
    scope: 'process',
    upstream: () => [proto(MerklePatriciaTrie).lookupNode, proto(BranchMPTNode).serialize],
    fingerprint: '4468f038b91c413917ae4f34c4307b521fc209e9fc75afc715281d6060f479d7',
    apply: applyTrieNodeCodec,
  },
  {
    id: 'mapdb-flat-strings',
    replaces: ['@ethereumjs/util: MapDB.prototype.put'],
    why: 'Hex keys and values kept as V8 ropes (one cons cell per byte): ~1 kB per 32-byte key instead of ~100 bytes.',
    file: 'src/evm/trieStorage.ts',
    scope: 'process',
    upstream: () => [proto(MapDB).put],
    fingerprint: 'e11037a7f8e61af116278889736ab296ad1194b05a7f8d9b01a34142bcb5e2bd',
    apply: applyFlatMapDbStrings,
  },
  {
    id: 'trie-copy-encoding',
    replaces: ['@ethereumjs/mpt: MerklePatriciaTrie.prototype.shallowCopy'],
    why: 'Copies fell back to storing nodes as hex strings (twice the size, decoded on every read) for every storage trie and state copy.',
    file: 'src/evm/trieStorage.ts',
    scope: 'process',
    upstream: () => [proto(MerklePatriciaTrie).shallowCopy],
    fingerprint: 'f38a7abd232bf7d544b432e455e525cdc1e926007981d0c1deba7ccd6a790480',
    apply: applyTrieCopyEncoding,
  },
  {
    id: 'trie-checkpoints',
    replaces: ['@ethereumjs/mpt: MerklePatriciaTrie.prototype.commit, revert (a nested checkpoint\'s commit, any revert, when the trie\'s lock is free)'],
    why: 'Each EVM call commits two state checkpoints; each trie commit took the lock and awaited the database\'s commit and persistRoot (three awaits, several promises) to fold one map into another, inside a request\'s checkpoint that never closes. Alone ~1.5 % of the CPU of a 100-call eth_simulateV1 (paired in-process A/B, both orders, loaded machine: within its noise); with the synchronous SLOAD/SSTORE paths (opcode-handlers) and the address memo (hex-keys) ~0.89x the CPU per request.',
    file: 'src/evm/trieCheckpoints.ts',
    scope: 'process',
    upstream: () => [
      proto(MerklePatriciaTrie).commit,
      proto(MerklePatriciaTrie).revert,
      proto(MerklePatriciaTrie).persistRoot,
      proto(CheckpointDB).commit,
      proto(CheckpointDB).revert,
    ],
    fingerprint: '3cb0fc618c95ed22c9b84c05f035e0fdcdb8029451a89c07a4c97cf2e6cedba2',
    apply: applyTrieCheckpoints,
  },
  {
    id: 'sender-address-memo',
    replaces: txClasses.map((c) => `@ethereumjs/tx: ${c.name}.prototype.getSenderAddress`),
    why: 'The sender address was re-hashed with the pure-JS keccak at every getSenderAddress (admission, runTx).',
    file: 'src/evm/senderAddress.ts',
    scope: 'process',
    upstream: () => txClasses.map((c) => proto(c).getSenderAddress),
    fingerprint: 'ef69709203524f747f25e0cec5ac83702231fb79bb0c7c2fbb3a1bf227606603',
    apply: applySenderAddressMemo,
  },
  {
    id: 'serialized-memo',
    replaces: txClasses.map((c) => `@ethereumjs/tx: ${c.name}.prototype.serialize`),
    why: 'A decoded transaction was RLP-encoded again for every hash and trie: ~5 % of the CPU per ETH transfer. A frozen transaction devnet built (a simulated call) keeps its first encoding: a 100-call eth_simulateV1 encoded each call three times (hash, transaction root, block size); with keccak-memo\'s native keys, 0.92-0.94x the CPU per request (three paired in-process A/B runs, loaded machine; sim1 0.94x, an eth_call of a new holder 0.94x).',
    file: 'src/evm/serializedMemo.ts',
    scope: 'process',
    upstream: () => txClasses.map((c) => proto(c).serialize),
    fingerprint: 'c2d2ab8e43d51c86bb49e1a6e86580b4b70cd1c3f746b14ac19712ccbb6cdc02',
    apply: applySerializedMemo,
  },
  {
    id: 'fork-state',
    replaces: [
      '@ethereumjs/statemanager: MerkleStateManager.prototype.getAccount, putAccount, deleteAccount, getStorage, putStorage, getCode',
    ],
    why: 'Not a speedup: the fork mode (--fork-url) reads what a forked state misses locally from the upstream chain and leaves tombstones for deleted upstream data. Applied when the first fork opens (a process that never forks keeps the library\'s methods), in stock mode too.',
    file: 'src/evm/forkState.ts',
    scope: 'process',
    lazy: true,
    feature: true,
    upstream: forkStateUpstream,
    fingerprint: '8fb322bac3d0a4fc53aa071706723dc9059537a7aca4d81caf8d0a89eeeed54b',
    apply: applyForkState,
  },
  // Instance patches: devnet's own objects and code paths; call sites ask patchActive(id).
  {
    id: 'native-crypto',
    replaces: ['@ethereumjs/common: customCrypto.keccak256 / customCrypto.ecrecover (the library defaults)'],
    why: 'Signature recovery is the hottest step of admission: pure-JS ~900/s, native secp256k1 ~20x; keccak by WebAssembly is ~2x the native binding at trie-node sizes.',
    file: 'src/evm/crypto.ts',
    scope: 'instance',
    upstream: () => [ecrecover],
    fingerprint: '562236d47997779541639d10bca0b8b38f2219b5a5c462d20b70655c3e488dcc',
  },
  {
    id: 'common-params',
    replaces: ['@ethereumjs/common: Common.prototype.updateParams (per Common, for the four standard sets)'],
    why: 'Every tx and block copies its Common and re-merges the same parameter sets: a third of sealing a small block.',
    file: 'src/evm/common.ts',
    scope: 'instance',
    upstream: () => [Common.prototype.updateParams, Common.prototype.copy],
    fingerprint: 'b3835362881c8dba6c3de0d11df30638d671ed2a993db9fb64fc6538771b48df',
  },
  {
    id: 'packed-node-store',
    replaces: ['@ethereumjs/util: MapDB._database (the Map of trie nodes)'],
    why: 'Trie nodes as keys and values in shared 1 MiB slabs: memory per stored node.',
    file: 'src/evm/packedNodeStore.ts',
    scope: 'instance',
    upstream: () => [MapDB],
    fingerprint: '7630e28c8c9e25a9bd7600b1ee36e036997b3a8ba7d388cf296b1ddbea8b7f9a',
  },
  {
    id: 'view-state',
    replaces: ['@ethereumjs/statemanager: MerkleStateManager reads (subclass ViewStateManager)'],
    why: 'Reverted call checkpoints forgot every read; a warm read-through base saves the trie walks, two thirds of a token balanceOf.',
    file: 'src/evm/viewState.ts',
    scope: 'instance',
    upstream: () => [MerkleStateManager],
    fingerprint: '5100e441e3aad5e0ad174fe4c3fd7f1ee923d7f02a122b069aa6f6d26bc85e6e',
  },
  {
    id: 'keyed-caches',
    replaces: ['@ethereumjs/statemanager: AccountCache, CodeCache, StorageCache (put, get, del, clearStorage, dump; their OrderedMap), in devnet\'s createCaches and in the copies createVmAt makes (the pending block\'s VM)'],
    why: 'Entries in a red-black tree of hex-string keys built a byte at a time: every account, code and storage read of every call compared and flattened rope strings. A Map of flat keys (hexKeys.ts) holds the same entries, and account entries encode their RLP only when the trie flush reads it: time in the state caches -44 % on a 100-call eth_simulateV1.',
    file: 'src/evm/hexKeys.ts',
    scope: 'instance',
    upstream: () => [AccountCache, CodeCache, StorageCache],
    fingerprint: '6ef77258b82524e3d18a3a110b786b3f64773f736af41e5cd338009d06d1d573',
  },
  {
    id: 'deferred-flush',
    replaces: ['@ethereumjs/statemanager: MerkleStateManager.prototype.commit (on the pre-confirmed state)'],
    why: 'The caches were flushed into the trie at every transaction; once per root writes shared accounts once.',
    file: 'src/evm/deferredFlush.ts',
    scope: 'instance',
    upstream: () => [proto(MerkleStateManager).commit],
    fingerprint: 'f1f62ebe50cfa40a8ea069a9b2b06d7cbb751e653f7ec71373392728ec2a0c05',
  },
  {
    id: 'batched-flush',
    replaces: ['@ethereumjs/statemanager: MerkleStateManager.prototype.flush (on the pre-confirmed state)'],
    why: 'One put per slot and account, each re-hashing its path; one batched trie update per trie instead.',
    file: 'src/evm/batchedFlush.ts',
    scope: 'instance',
    upstream: () => [proto(MerkleStateManager).flush],
    fingerprint: '01d58661deeb4987dbaf604aad221e67cf7f3fffbd7c6ef5afa0e1cc5a3ce509',
  },
  {
    id: 'sync-trie-db',
    replaces: ['@ethereumjs/mpt: CheckpointDB.prototype.get / batch, @ethereumjs/util: MapDB.prototype.get / put (the node reads and writes of a batched trie update)'],
    why: 'A batched flush read each trie node through five async layers and stored each through two: ~250 promises per auto-mined token transfer (two flushes per seal) for Map lookups and sets. With no checkpoint open, no cache and bytes stored, the same entries are read and written synchronously.',
    file: 'src/evm/syncTrieDb.ts',
    scope: 'instance',
    upstream: () => [CheckpointDB, MapDB],
    fingerprint: 'bdb992d1d673135e2b1d285512f977dfba9c82f373741deb598449ab7269345d',
  },
  {
    id: 'sync-trie-get',
    replaces: ['@ethereumjs/mpt: MerklePatriciaTrie.prototype.get / findPath (a read the trie-read memo does not hold yet)'],
    why: 'findPath follows one key through the WalkController: a task queue with a promise and a node object per node, ~25 µs a walk; a first read of a slot (each transfer to a new recipient; on a fork also its tombstone, and the tombstones of the system writes of each block) walked it. One synchronous walk over the same stored nodes, when the database answers synchronously (sync-trie-db).',
    file: 'src/evm/syncTrieGet.ts',
    scope: 'instance',
    upstream: () => [MerklePatriciaTrie],
    fingerprint: '05da418eb85bd36aa2ba456c679c7ae7ebeee0fb923ad41c9aee7c09e0ad3c04',
  },
  {
    id: 'idle-request-queues',
    replaces: ['@ethereumjs/vm: EIP-7002/7251 system calls of BlockBuilder.build (accumulateRequests)'],
    why: 'Two full EVM calls and flushes per Prague block for queues that are empty: about half of sealing an empty block. On a view (eth_simulateV1) an untouched queue is read once per view root instead of ten journaled reads per simulated block: with the two redundant sender reads per call gone too, process CPU of a one-call simulation ~0.47 -> ~0.40 ms in-process (loaded machine, in-process A/B).',
    file: 'src/evm/idleRequestQueues.ts',
    scope: 'instance',
    upstream: () => [BlockBuilder],
    fingerprint: '1979ac7c04244a478210d48a61b5186137f1b1ec6f34cacdaa79b132ce09c45b',
  },
  {
    id: 'block-roots',
    replaces: ['@ethereumjs/vm: BlockBuilder.prototype.transactionsTrie / receiptTrie'],
    why: 'A trie with a database and an async put per item at every seal, even for an empty block; one synchronous ordered-trie pass gives the same roots.',
    file: 'src/evm/orderedTrie.ts',
    scope: 'instance',
    upstream: () => [proto(BlockBuilder).transactionsTrie, proto(BlockBuilder).receiptTrie],
    fingerprint: 'ae12e7297960205bf2cf8ee735488c89a984a3739ffc6287527617d620ff7d2a',
  },
  {
    id: 'call-tx',
    replaces: [
      '@ethereumjs/tx: new FeeMarket1559Tx (for eth_call requests)',
      '@ethereumjs/tx: FeeMarket1559Tx.prototype.serialize (raw() + RLP.encode, for an unsigned call without access list: eth_simulateV1 calls, through the serialized-memo)',
      '@ethereumjs/tx: the first getDataGas() of a frozen call (tx.cache.dataFee, filled by primeDataGas: eth_simulateV1 calls)',
    ],
    why: 'The constructor turned every bigint into bytes and back and checked each bound: ~10 % of a balanceOf (~0.17 -> ~0.15 ms). A simulated call\'s first serialize (for its hash) built a dozen arrays and converted each integer through hex: ~5 % of a 100-call eth_simulateV1 (CPU profile); encodeCallTx1559 writes the same bytes in one pass. Its data gas was a bigint addition (a heap object) per calldata byte: ~3 % of a 100-call eth_simulateV1\'s allocations.',
    file: 'src/evm/callTx.ts',
    scope: 'instance',
    upstream: () => [FeeMarket1559Tx],
    fingerprint: '146f2be9b01e5bd19f3ca2ce9ee192bc292673e263d465e7179a322e6f22ef92',
  },
  {
    id: 'read-only-tx',
    replaces: ['@ethereumjs/vm: runTx (for calls whose state is reverted)'],
    why: 'runTx\'s steps after execution (refund, coinbase, cleanup, bloom, receipt) are thrown away by a call: a fifth of a token balanceOf.',
    file: 'src/evm/readOnlyTx.ts',
    scope: 'instance',
    upstream: () => [runTx],
    fingerprint: '7effafbcc77c6379e87f2328d0a84e70481ffa22c41690fb3737e095656952aa',
  },
  {
    id: 'builder-seal',
    replaces: ['@ethereumjs/vm: BlockBuilder.prototype.build (for eth_simulateV1 blocks and the sealed blocks of the pre-confirmed layer)'],
    why: 'The EIP-7685 request accumulation (two system calls on idle queues) and a second block construction: a share of a one-call eth_simulateV1 that was not measured alone (it landed with other simulate changes; with it, sealing is ~12-23% of a warm one-call simulate under phase timers). At a seal, build() also re-created every transaction (createBlock), so the chain hashed each again: ~0.1 ms of a one-transaction auto-mined block under the profiler (bench/seqTransfers.ts); an empty block seals in 0.23-0.26 ms of CPU, 0.26-0.29 before (in-process, loaded).',
    file: 'src/evm/builderSeal.ts',
    scope: 'instance',
    upstream: () => [BlockBuilder, createBlock],
    fingerprint: 'dadb6438d0234c178877ac96cb711e50d81b271be50077cdbe30a3fa6c2f8003',
  },
  {
    id: 'header-fields',
    replaces: ['@ethereumjs/block: new BlockHeader (for the headers of eth_simulateV1 blocks and the blocks of the pre-confirmed layer, sealBuiltBlock)'],
    why: 'The constructor passes every field through toType: bytes copied element by element, each bigint written as hex, parsed and read back. ~20 µs of a header whose fields are already bigints and bytes (in-process microbenchmark, loaded machine), at every simulated block.',
    file: 'src/evm/headerFields.ts',
    scope: 'instance',
    upstream: () => [BlockHeader, createBlockHeader, toType],
    fingerprint: 'ec25206b594db0a31522c789e269fce826f9e341d8663b17be4d27e965241952',
  },
  {
    id: 'system-writes',
    replaces: [
      '@ethereumjs/vm: BlockBuilder.prototype.initState (EIP-4788 and EIP-2935 system writes, for eth_simulateV1 blocks and the blocks of the pre-confirmed layer)',
    ],
    why: 'Slot keys padded by spreading arrays (setLengthLeft), the history address parsed from its parameter per block, and a journal cleanup awaited after each contract: ~4.6 % of a warm one-call eth_simulateV1 (accumulateParentBeaconBlockRoot 2.7 %, accumulateParentBlockHash 1.9 %, in-process CPU profile), every simulated and pre-confirmed block.',
    file: 'src/evm/systemWrites.ts',
    scope: 'instance',
    // Journal.prototype.cleanup (what resetJournal stands in for) is journal-cleanup's upstream, checked with it: a
    // process patch replaces it, and an instance patch's upstream must stay as published once the engine is installed.
    upstream: () => [proto(BlockBuilder).initState, ...systemWritesUpstream()],
    fingerprint: 'ec3f5fd83973dc54693eedfb8450f6b22e1c4b187688dab302214382d4d4d2bb',
  },
  {
    id: 'block-size',
    replaces: ['@ethereumjs/block: Block.prototype.serialize (for a block\'s size only)'],
    why: 'A block\'s size encoded the whole block (every transaction copied) to read its length: a few percent of a 100-call eth_simulateV1.',
    file: 'src/evm/blockSize.ts',
    scope: 'instance',
    upstream: () => [proto(Block).serialize, proto(Block).raw],
    fingerprint: '2d3b18c1d7f804a91da2f9d27e34b4424a2dfe91956abfd3eaf8f72075522974',
  },
  {
    id: 'lazy-bigint-cache',
    replaces: ['@ethereumjs/util: the BIGINT_CACHE of bytes.js (filled at module evaluation) and bytesToBigInt\'s two reads of it'],
    why: 'Evaluating bytes.js made 65,536 BigInts (0 to 65,535) for bytesToBigInt of one- and two-byte inputs: 2 MB kept alive, ~5 ms of CPU and a few young-generation collections (each copying them) in every CLI start, before the node could answer. Filled on use, the values come out the same (a bigint has no identity).',
    file: 'scripts/engineBundle.mjs (lazyBigIntCachePlugin)',
    scope: 'build',
    upstream: () => [bytesToBigInt],
    fingerprint: '1bd2bbed217a0b77acce3461171b8c94de401c7d6c90bedbf156523604e4c0ab',
  },
  {
    id: 'lazy-start-modules',
    replaces: [
      '@ethereumjs/vm: runTx.js\'s DEFAULT_HEADER (made at module evaluation)',
      '@ethereumjs/evm: the noble curve imports of the BLS12-381, BN254 and P-256 precompiles (evaluated with them)',
    ],
    why: 'A CLI start evaluated what it never uses: the default header runTx falls back on without a block (a mainnet Common and its parameter cache) and the BLS12-381, BN254 and P-256 curves (field towers, points, constants), ~5 ms of a fork start\'s profile and their code in the code cache (1842 -> 1796 KiB). Made at first use, they are the same values.',
    file: 'scripts/engineBundle.mjs (lazyStartModulesPlugin)',
    scope: 'build',
    upstream: () => [runTx, NobleBLS, NobleBN254, p256Entry()],
    fingerprint: 'f26ea99ad31ee75ac53733b3513cfe52caf6cc25488c3ee27970cdc71ce9a16f',
  },
]

export type EngineMode = 'devnet' | 'stock'

/** The engine DEVNET_ENGINE asks for: `stock` runs @ethereumjs unpatched, anything else but `devnet` (or unset) is an error. */
export function engineModeOf(env: Record<string, string | undefined> = process.env): EngineMode {
  const value = env.DEVNET_ENGINE?.trim()
  if (value === undefined || value === '' || value === 'devnet') return 'devnet'
  if (value === 'stock') return 'stock'
  throw new Error(`DEVNET_ENGINE must be "devnet" or "stock", not ${JSON.stringify(value)}`)
}

/** The sha256 of upstream sources, as the registry records it. */
export function fingerprintOf(sources: readonly string[]): string {
  const hash = createHash('sha256')
  for (const source of sources) hash.update(source).update('\n\0\n')
  return hash.digest('hex')
}

/** Upstream sources captured just before each process patch was applied (after it, the library holds ours). */
const capturedSources = new Map<string, string[]>()

/** The upstream source text a patch was checked against: what the installed library holds (before the patch). */
export function upstreamSources(patch: EnginePatch): string[] {
  return capturedSources.get(patch.id) ?? patch.upstream().map((fn) => (fn === undefined ? '<missing>' : String(fn)))
}

export type PatchMismatch = { id: string; replaces: string[]; expected: string; actual: string }

/** The patches whose upstream code differs from the code they were written against. */
export function checkFingerprints(
  patches: readonly EnginePatch[] = enginePatches,
  sourcesOf: (patch: EnginePatch) => string[] = upstreamSources,
): PatchMismatch[] {
  const mismatches: PatchMismatch[] = []
  for (const patch of patches) {
    const actual = fingerprintOf(sourcesOf(patch))
    if (actual !== patch.fingerprint) mismatches.push({ id: patch.id, replaces: patch.replaces, expected: patch.fingerprint, actual })
  }
  return mismatches
}

/** Throws EnginePatchMismatchError, naming every patch whose upstream code differs from the code it was written against. */
export function verifyEnginePatches(
  patches: readonly EnginePatch[] = enginePatches,
  sourcesOf: (patch: EnginePatch) => string[] = upstreamSources,
): void {
  const mismatches = checkFingerprints(patches, sourcesOf)
  if (mismatches.length > 0) throw new EnginePatchMismatchError(mismatches)
}

/** The installed @ethereumjs differs from the version the named patches were written against. */
export class EnginePatchMismatchError extends Error {
  override name = 'EnginePatchMismatchError'
  readonly patches: string[]
  constructor(readonly mismatches: PatchMismatch[]) {
    super(
      `devnet's engine patches were written against @ethereumjs 10.1.3, and the installed library differs for ` +
        `${mismatches.length} of them: ${mismatches.map((m) => m.id).join(', ')}.\n` +
        mismatches.map((m) => `  - ${m.id}: ${m.replaces.join('; ')}`).join('\n') +
        `\nReview each against the new source (src/evm/patches/registry.ts, scripts/patch-fingerprints.ts), ` +
        `or run the unpatched library with DEVNET_ENGINE=stock.`,
    )
    this.patches = mismatches.map((m) => m.id)
  }
}

/** An EIP active on a chain that the engine's guards were not written for. */
export class UnknownEipError extends Error {
  override name = 'UnknownEipError'
  constructor(readonly eips: number[]) {
    super(
      `EIP ${eips.map((e) => `EIP-${e}`).join(', ')} can be active on this chain, but devnet's engine patches only know the EIPs of ` +
        `@ethereumjs 10.1.3, and their guards would run the fast paths without it. Review src/evm/patches/registry.ts ` +
        `(and src/evm/patches/knownEips.ts), or run the unpatched library with DEVNET_ENGINE=stock.`,
    )
  }
}

let installed: EngineMode | undefined

/** Whether this is a bundle that checked the fingerprints when it was built (scripts/engineBundle.mjs): its library is fixed. */
declare const DEVNET_FINGERPRINTS_CHECKED_AT_BUILD: boolean | undefined
const checkedAtBuild = typeof DEVNET_FINGERPRINTS_CHECKED_AT_BUILD !== 'undefined' && DEVNET_FINGERPRINTS_CHECKED_AT_BUILD === true

/**
 * Installs the engine for this process, once: in `devnet` mode, checks every
 * fingerprint (throwing EnginePatchMismatchError, naming the patches, on any
 * difference) and applies the process patches; in `stock` mode, nothing.
 * Returns the mode. The first call decides: the process patches cannot be
 * taken back.
 */
export function installEngine(mode: EngineMode = engineModeOf()): EngineMode {
  if (installed !== undefined) return installed
  if (mode === 'stock') return (installed = 'stock')
  // Read every upstream source before any patch changes the library (some patches read what others replace).
  const sources = new Map(enginePatches.map((patch) => [patch.id, upstreamSources(patch)]))
  if (!checkedAtBuild) verifyEnginePatches(enginePatches, (patch) => sources.get(patch.id)!)
  for (const [id, text] of sources) capturedSources.set(id, text)
  for (const patch of enginePatches) if (patch.scope === 'process' && !patch.lazy) patch.apply!()
  return (installed = 'devnet')
}

const lazyApplied = new Set<string>()

/**
 * Applies the lazy process patch `id` once, when devnet first needs it:
 * checks its fingerprint against the library's code as it was before any
 * patch (throwing EnginePatchMismatchError naming it on a difference), then
 * installs it. In stock mode only a `feature` patch is applied (the others are
 * speedups, which stock mode runs without).
 */
export function applyLazyPatch(id: string): void {
  const patch = enginePatches.find((p) => p.id === id)
  if (patch === undefined || !patch.lazy) throw new Error(`no lazy engine patch named ${id} in src/evm/patches/registry.ts`)
  if (lazyApplied.has(id)) return
  const mode = engineMode()
  if (mode === 'stock' && !patch.feature) return
  // devnet mode captured the pristine sources at install; stock mode has not changed the library.
  if (!capturedSources.has(id)) capturedSources.set(id, upstreamSources(patch))
  if (!checkedAtBuild) verifyEnginePatches([patch])
  patch.apply!()
  lazyApplied.add(id)
}

/** Whether the lazy patch `id` has been applied in this process. */
export function lazyPatchApplied(id: string): boolean {
  return lazyApplied.has(id)
}

/** The engine mode of this process (installing it on first use). */
export function engineMode(): EngineMode {
  return installed ?? installEngine()
}

/** Whether the patch `id` is in effect: an instance patch's call site asks before it patches. */
export function patchActive(id: string): boolean {
  if (engineMode() === 'stock') return false
  if (!enginePatches.some((p) => p.id === id)) throw new Error(`no engine patch named ${id} in src/evm/patches/registry.ts`)
  return true
}

/**
 * Throws UnknownEipError when any fork of `common`'s schedule (or its extra
 * EIPs) activates an EIP that @ethereumjs 10.1.3 did not know: the fast
 * paths' guards list the EIPs they leave to the library by number, so an EIP
 * they never heard of would run through them unchecked. Stock mode has no
 * fast paths and no guard.
 */
export function assertKnownEips(common: Common): void {
  if (engineMode() === 'stock') return
  const c = common as unknown as { HARDFORK_CHANGES: [string, { eips?: number[] }][]; _eips: number[] }
  const unknown = new Set<number>()
  for (const [, hf] of c.HARDFORK_CHANGES) for (const eip of hf.eips ?? []) if (!knownEips.has(eip)) unknown.add(eip)
  for (const eip of c._eips) if (!knownEips.has(eip)) unknown.add(eip)
  if (unknown.size > 0) throw new UnknownEipError([...unknown].sort((a, b) => a - b))
}

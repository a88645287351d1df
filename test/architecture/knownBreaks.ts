/**
 * Breaks of the layer rules that exist today and are being removed (issue 13):
 * test/architecture.test.ts fails on any break not listed here, and on any
 * entry here that is no longer a break, so this list only shrinks. Never add
 * to it: move the code behind the layer it belongs to instead.
 */
export const knownBreaks: readonly string[] = [
  'src/rpc/codecs.ts layer-direction rpc -> evm (src/evm/execute.ts)',
  'src/rpc/format.ts ethereumjs-outside-engine @ethereumjs/tx',
  'src/rpc/format.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/format.ts layer-direction rpc -> evm (src/evm/types.ts)',
  'src/rpc/methods/chain.ts ethereumjs-outside-engine @ethereumjs/common',
  'src/rpc/methods/config.ts ethereumjs-outside-engine @ethereumjs/common',
  'src/rpc/methods/config.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/methods/debugRaw.ts ethereumjs-outside-engine @ethereumjs/rlp',
  'src/rpc/methods/debugRaw.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/methods/debugRaw.ts layer-direction rpc -> evm (src/evm/types.ts)',
  'src/rpc/methods/debugTrace.ts rpc-node-internals .internals',
  'src/rpc/methods/devnet.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/methods/devnet.ts rpc-node-internals .internals',
  'src/rpc/methods/mining.ts rpc-node-internals .internals',
  'src/rpc/methods/reorg.ts ethereumjs-outside-engine @ethereumjs/tx',
  'src/rpc/methods/reorg.ts rpc-node-internals .internals',
  'src/rpc/methods/send.ts ethereumjs-outside-engine @ethereumjs/tx',
  'src/rpc/methods/send.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/methods/send.ts layer-direction rpc -> evm (src/evm/impersonated.ts)',
  'src/rpc/methods/simulate.ts layer-direction rpc -> evm (src/evm/execute.ts)',
  'src/rpc/methods/simulate.ts rpc-node-internals .internals',
  'src/rpc/methods/testing.ts ethereumjs-outside-engine @ethereumjs/tx',
  'src/rpc/methods/testing.ts ethereumjs-outside-engine @ethereumjs/util',
  'src/rpc/methods/testing.ts rpc-node-internals .internals',
  'src/rpc/methods/time.ts rpc-node-internals .internals',
]

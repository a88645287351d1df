/**
 * Modules of the engine, each a loader, in an order where each part brings
 * in a slice of @ethereumjs and the native bindings not loaded before it:
 * src/index.ts loads them one at a time once the socket listens, with the
 * event loop given turns between them, so a request that arrives meanwhile
 * waits for one part (a few ms) rather than for the whole engine (the
 * largest part of a start). Each is a module the node imports anyway (a
 * namespace import of a package would bundle all of its exports), and a part
 * left out is loaded by a later one: the list is a matter of speed only.
 */
export const engineParts: (() => Promise<unknown>)[] = [
  () => import('./keccak.js'), // hash-wasm, the native keccak binding
  () => import('./crypto.js'), // @ethereumjs/common and util, the native secp256k1 binding
  () => import('./rawTx.js'), // @ethereumjs/tx and rlp
  () => import('./genesis.js'), // @ethereumjs/block and statemanager
  () => import('./engine.js'), // @ethereumjs/evm and vm
  () => import('./common.js'), // the engine patches
]

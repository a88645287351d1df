/**
 * The engine's types that the node hands to the RPC layer (blocks,
 * transactions, executed transactions, call requests), named here so that
 * src/rpc imports them from the node and never from src/evm or @ethereumjs
 * (test/architecture.test.ts).
 */
export type { Block, Common, TypedTransaction } from '../evm/engine.js'
export type { CallRequest } from '../evm/execute.js'
export type { ExecutedTx } from '../evm/types.js'

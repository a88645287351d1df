import type { Hex } from 'viem'
import { bytesToHex, hexToBytes } from 'viem/utils'
import type { PayloadAttributes } from '../../node/buildPayload.js'
import type { TypedTransaction } from '../../node/engineTypes.js'
import type { Node } from '../../node/node.js'
import { ArgError, address, data, hash, quantity, uint64 } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { InvalidParamsError } from '../errors.js'
import { q } from '../format.js'

/**
 * # testing_buildBlockV1
 * Builds the block a proposer would get from `engine_getPayload` on
 * `parentHash` with the given payload attributes, and returns it without
 * adding it to the chain: the head, the pool and the pre-confirmed block do
 * not change.
 *
 * `transactions`: a list of raw transactions (network-form blob transactions
 * too) is included exactly, in order, and one that cannot be included fails
 * the call with geth's message; `[]` builds an empty block; `null` takes what
 * devnet would put in its next block: on the head, the pre-confirmed
 * transactions and then the pool's executable ones; on an older parent, the
 * pool's executable ones. The gas limit moves from the parent's toward the
 * configured `gasLimit`, as geth's miner moves it toward its gas ceiling.
 *
 * @example
 * ```json
 * >> {"method":"testing_buildBlockV1","params":["0xd226…",{"timestamp":"0x228","prevRandao":"0x00…",
 *      "suggestedFeeRecipient":"0x00…","withdrawals":[],"parentBeaconBlockRoot":"0xcf8e…"},[],"0x"]}
 * << {"result":{"executionPayload":{…,"blockNumber":"0x37","transactions":[]},"blockValue":"0x0",
 *      "blobsBundle":{"commitments":[],"proofs":[],"blobs":[]},"executionRequests":[],"shouldOverrideBuilder":false}}
 * ```
 */
export const testingMethods: MethodDef[] = [
  defineMethod({
    method: 'testing_buildBlockV1',
    params: [hash, payloadAttributes, rawTransactions, data],
    required: 2,
    handler: async ({ node }, [parentHash, attributes, raws, extraData]) => {
      const txs = raws?.map((raw, i) => decode(node, raw, i))
      const built = await node.buildPayload(parentHash, attributes, txs, { extraData: extraData ?? '0x' })
      const h = built.block.header
      return {
        executionPayload: {
          parentHash: bytesToHex(h.parentHash),
          feeRecipient: h.coinbase.toString(),
          stateRoot: bytesToHex(h.stateRoot),
          receiptsRoot: bytesToHex(h.receiptTrie),
          logsBloom: bytesToHex(h.logsBloom),
          prevRandao: bytesToHex(h.mixHash),
          blockNumber: q(h.number),
          gasLimit: q(h.gasLimit),
          gasUsed: q(h.gasUsed),
          timestamp: q(h.timestamp),
          extraData: bytesToHex(h.extraData),
          baseFeePerGas: q(h.baseFeePerGas ?? 0n),
          blockHash: bytesToHex(built.block.hash()),
          transactions: built.block.transactions.map((tx) => bytesToHex(tx.serialize())),
          ...(built.block.withdrawals
            ? {
                withdrawals: built.block.withdrawals.map((w) => ({
                  index: q(w.index),
                  validatorIndex: q(w.validatorIndex),
                  address: w.address.toString(),
                  amount: q(w.amount),
                })),
              }
            : {}),
          ...(h.blobGasUsed !== undefined ? { blobGasUsed: q(h.blobGasUsed), excessBlobGas: q(h.excessBlobGas ?? 0n) } : {}),
        },
        blockValue: q(built.value),
        // the pool keeps blob transactions without their sidecars, so none are bundled
        blobsBundle: { commitments: [], proofs: [], blobs: [] },
        ...(h.requestsHash !== undefined ? { executionRequests: built.requests } : {}),
        shouldOverrideBuilder: false,
      }
    },
  }),
]

function decode(node: Node, raw: Hex, index: number): TypedTransaction {
  try {
    return node.decodeRaw(hexToBytes(raw))
  } catch (error) {
    throw new InvalidParamsError(`invalid argument 2: transaction ${index}: ${(error as Error).message.split('\n')[0]}`)
  }
}

function payloadAttributes(value: unknown): PayloadAttributes {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ArgError('cannot unmarshal non-object into Go value of type engine.PayloadAttributes')
  const o = value as Record<string, unknown>
  if (o.timestamp === undefined) throw new ArgError('missing required field \'timestamp\' for PayloadAttributes')
  if (o.prevRandao === undefined) throw new ArgError('missing required field \'prevRandao\' for PayloadAttributes')
  if (o.suggestedFeeRecipient === undefined)
    throw new ArgError('missing required field \'suggestedFeeRecipient\' for PayloadAttributes')
  if (o.withdrawals != null && !Array.isArray(o.withdrawals)) throw new ArgError('withdrawals: expected an array')
  return {
    timestamp: uint64(o.timestamp),
    prevRandao: hash(o.prevRandao),
    feeRecipient: address(o.suggestedFeeRecipient),
    withdrawals: (o.withdrawals as Record<string, unknown>[] | null | undefined)?.map((w) => ({
      index: uint64(w.index),
      validatorIndex: uint64(w.validatorIndex),
      address: address(w.address),
      amount: quantity(w.amount),
    })),
    parentBeaconBlockRoot: o.parentBeaconBlockRoot == null ? undefined : hash(o.parentBeaconBlockRoot),
  }
}

function rawTransactions(value: unknown): Hex[] {
  if (!Array.isArray(value)) throw new ArgError('cannot unmarshal non-array into Go value of type []hexutil.Bytes')
  return value.map(data)
}


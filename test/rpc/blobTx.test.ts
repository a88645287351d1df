import { createBlob4844Tx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'

// A blob transaction on the dev chain: its Common carries KZG, so the network
// form (blobs, commitments, proofs) is decoded and verified, and the bare
// transaction is pooled, pre-confirmed and sealed. The chain runs Prague here:
// building Osaka's 128 cell proofs per blob takes ~15 s in pure JS (verifying
// them ~1 s); the corpus case eth_sendRawTransaction/send-blob-tx covers Osaka.
let devnet: Devnet
/** One blob, reused by every transaction: its commitment and proof are computed once. */
let sidecar: { blobs: `0x${string}`[]; kzgCommitments: `0x${string}`[]; kzgProofs: `0x${string}`[]; blobVersionedHashes: `0x${string}`[] }
beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, hardfork: 'prague' })
  // 4096 field elements, each below the BLS modulus (top byte zero)
  const blob = new Uint8Array(131_072)
  for (let i = 0; i < 4096; i++) blob[i * 32 + 31] = i % 256
  const tx = createBlob4844Tx({ to: devnet.accounts[1]!.address, blobs: [bytesToHex(blob)] }, { common: devnet.node.common })
  sidecar = {
    blobs: tx.blobs!,
    kzgCommitments: tx.kzgCommitments!,
    kzgProofs: tx.kzgProofs!,
    blobVersionedHashes: tx.blobVersionedHashes,
  }
})
afterAll(async () => {
  await devnet.close()
})

const request = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never) as Promise<any>

/** A signed blob transaction from dev account 0, built by ethereumjs with the node's own Common. */
function blobTx(nonce: bigint) {
  return createBlob4844Tx(
    {
      chainId: devnet.node.chainId,
      nonce,
      to: devnet.accounts[1]!.address,
      gasLimit: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
      maxFeePerBlobGas: parseGwei('1'),
      ...sidecar,
    },
    { common: devnet.node.common },
  ).sign(hexToBytes(devnet.accounts[0]!.privateKey))
}

describe('blob transactions on the dev chain', () => {
  test('the network form is accepted, pre-confirmed and sealed with blob gas', async () => {
    const tx = blobTx(0n)
    const hash = await request('eth_sendRawTransaction', [bytesToHex(tx.serializeNetworkWrapper())])
    expect(hash).toBe(bytesToHex(tx.hash()))
    await devnet.preconfirm()
    const receipt = await request('eth_getTransactionReceipt', [hash])
    expect(receipt).toMatchObject({ status: '0x1', type: '0x3', blobGasUsed: '0x20000' })
    expect(BigInt(receipt.blobGasPrice)).toBeGreaterThan(0n)
    const pooled = await request('eth_getTransactionByHash', [hash])
    expect(pooled.blobVersionedHashes).toEqual(tx.blobVersionedHashes)
    // The block carries the bare transaction: the raw form has no sidecar.
    const sealed = await devnet.seal()
    expect((await request('eth_getBlockByNumber', [`0x${sealed.number.toString(16)}`, false])).blobGasUsed).toBe('0x20000')
    expect(await request('debug_getRawTransaction', [hash])).toBe(bytesToHex(tx.serialize()))
  })

  test('a sidecar that does not match its versioned hashes is refused with -32602', async () => {
    const tx = blobTx(1n)
    const wrapper = tx.serializeNetworkWrapper()
    // Flip the low bit of a byte in the middle of the blob (the wrapper ends with
    // the commitment and proof, ~100 bytes; a field element stays in range).
    const tampered = wrapper.slice()
    tampered[tampered.length - 60_000]! ^= 1
    await expect(request('eth_sendRawTransaction', [bytesToHex(tampered)])).rejects.toMatchObject({ code: -32602 })
    expect(await request('eth_sendRawTransaction', [bytesToHex(wrapper)])).toBe(bytesToHex(tx.hash()))
  })
  test('after Osaka a sidecar with blob proofs (version 0) is still taken, as geth converts it', async () => {
    const osaka = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, hardfork: 'osaka' })
    try {
      const tx = blobTx(0n)
      const hash = await osaka.request({ method: 'eth_sendRawTransaction', params: [bytesToHex(tx.serializeNetworkWrapper())] } as never)
      expect(hash).toBe(bytesToHex(tx.hash()))
      await osaka.preconfirm()
      const receipt = (await osaka.request({ method: 'eth_getTransactionReceipt', params: [hash] } as never)) as { status: string }
      expect(receipt.status).toBe('0x1')
    } finally {
      await osaka.close()
    }
  })
})

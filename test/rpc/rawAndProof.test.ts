import { crc32 } from 'node:zlib'
import { createBlockFromRLP } from '@ethereumjs/block'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { keccak256, parseEther, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Devnet, createDevnet } from '../../src/index.js'
import { balanceSlot } from '../../src/evm/tokenSlots.js'
import { privateKeyToAccount } from 'viem/accounts'
import type { LooseRpc } from '../utils.js'

// The raw-encoding debug methods, eth_getProof and eth_config on the dev chain,
// checked against what the encodings must hash to.
let devnet: Devnet
let raw: `0x${string}`
let txHash: `0x${string}`
const request = (method: string, params: unknown[] = []) => devnet.request<LooseRpc>({ method, params })

beforeAll(async () => {
  devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
  const signer = privateKeyToAccount(devnet.accounts[0]!.privateKey)
  raw = await signer.signTransaction({
    chainId: devnet.chain.id, type: 'eip1559', to: devnet.accounts[1]!.address, value: parseEther('1'),
    nonce: 0, gas: 21_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1'),
  })
  txHash = await request('eth_sendRawTransaction', [raw])
  await devnet.seal()
})
afterAll(async () => {
  await devnet.close()
})

describe('debug_getRaw*', () => {
  test('the raw header hashes to the block hash; the raw block decodes to the same block', async () => {
    const block = await request('eth_getBlockByNumber', ['latest', false])
    expect(keccak256(await request('debug_getRawHeader', ['latest']))).toBe(block.hash)
    const decoded = createBlockFromRLP(hexToBytes(await request('debug_getRawBlock', [block.number])), { common: devnet.node.common })
    expect(bytesToHex(decoded.hash())).toBe(block.hash)
    expect(decoded.transactions.map((tx) => bytesToHex(tx.hash()))).toEqual([txHash])
  })

  test('the raw receipts rebuild the header receipts root', async () => {
    const block = await request('eth_getBlockByNumber', ['latest', false])
    const receipts: string[] = await request('debug_getRawReceipts', ['latest'])
    expect(receipts).toHaveLength(1)
    const trie = new MerklePatriciaTrie()
    for (const [i, receipt] of receipts.entries()) await trie.put(RLP.encode(i), hexToBytes(receipt as `0x${string}`))
    expect(bytesToHex(trie.root())).toBe(block.receiptsRoot)
  })

  test('the raw transaction is the signed envelope; unknown hash gives 0x; pending is not a sealed block', async () => {
    expect(await request('debug_getRawTransaction', [txHash])).toBe(raw)
    expect(await request('debug_getRawTransaction', [`0x${'11'.repeat(32)}`])).toBe('0x')
    await expect(request('debug_getRawHeader', ['pending'])).rejects.toMatchObject({ code: -32000, message: 'header not found' })
    await expect(request('debug_getRawBlock', ['0x99'])).rejects.toMatchObject({ code: -32000 })
  })
})

describe('eth_getProof', () => {
  test('the account proof starts at the state root and carries the account', async () => {
    const token = devnet.token.address
    const holder = devnet.accounts[2]!.address
    const slot = balanceSlot(holder)
    const block = await request('eth_getBlockByNumber', ['latest', false])
    const proof = await request('eth_getProof', [token, [slot, '0x0'], 'latest'])
    expect(keccak256(proof.accountProof[0])).toBe(block.stateRoot)
    expect(proof.address).toBe(token.toLowerCase())
    expect(proof.nonce).toBe('0x1')
    expect(proof.codeHash).toBe(keccak256(await request('eth_getCode', [token, 'latest'])))
    // The storage proof starts at the storage root and proves the balance word.
    expect(keccak256(proof.storageProof[0].proof[0])).toBe(proof.storageHash)
    expect(proof.storageProof[0].key).toBe(slot)
    expect(BigInt(proof.storageProof[0].value)).toBe(BigInt(await request('eth_getStorageAt', [token, slot, 'latest'])))
    // A short key comes back as a quantity, as geth echoes it.
    expect(proof.storageProof[1].key).toBe('0x0')
  })

  test('an unknown account: empty account, storage keys with value 0 and no nodes', async () => {
    const proof = await request('eth_getProof', [`0x${'ab'.repeat(20)}`, ['0x1'], 'latest'])
    expect(proof).toMatchObject({ balance: '0x0', nonce: '0x0', storageProof: [{ key: '0x1', value: '0x0', proof: [] }] })
    expect(proof.accountProof.length).toBeGreaterThan(0)
  })

  test('bad keys are refused with -32602', async () => {
    await expect(request('eth_getProof', [devnet.token.address, ['0xzz'], 'latest'])).rejects.toMatchObject({ code: -32602 })
    await expect(request('eth_getProof', [devnet.token.address, '0x0', 'latest'])).rejects.toMatchObject({ code: -32602 })
  })
})

describe('eth_config and eth_capabilities on the dev chain', () => {
  test('every fork at genesis: Osaka current, nothing scheduled, fork hash of the genesis alone', async () => {
    const config = await request('eth_config')
    const genesis = await request('eth_getBlockByNumber', ['0x0', false])
    expect(config.next).toBeNull()
    expect(config.last).toBeNull()
    expect(config.current).toMatchObject({
      activationTime: 0,
      chainId: '0x7a69',
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      forkId: `0x${crc32(hexToBytes(genesis.hash)).toString(16).padStart(8, '0')}`,
    })
    expect(config.current.precompiles.P256VERIFY).toBe(`0x${'0'.repeat(37)}100`)
    expect(Object.keys(config.current.precompiles)).toHaveLength(18)
    expect(config.current.systemContracts.HISTORY_STORAGE_ADDRESS).toBe('0x0000f90827f1c53a10cb7a02335b175320002935')
  })

  test('eth_capabilities: everything kept from block 0, head as sealed', async () => {
    const head = await request('eth_getBlockByNumber', ['latest', false])
    expect(await request('eth_capabilities')).toMatchObject({
      head: { number: head.number, hash: head.hash },
      state: { disabled: false, oldestBlock: '0x0' },
      logs: { disabled: false, oldestBlock: '0x0' },
    })
  })
})

import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadGethGenesis } from '../../src/evm/geth/genesis.js'
import { type ImportedBlock, importChain, readForkchoice } from '../../src/evm/geth/importChain.js'
import { corpusRoot } from './replay.js'

/** The execution-apis chain, vendored in test/data (CC0, see its SOURCE.md). */
const fixtures = `${corpusRoot}/`
const present = existsSync(`${fixtures}chain.rlp`)
if (!present) console.warn(`skipping chain import tests: ${fixtures} is absent`)

describe('loadGethGenesis input checks', () => {
  it('names the bad field', async () => {
    await expect(loadGethGenesis(null)).rejects.toThrow('genesis: genesis: expected an object')
    await expect(loadGethGenesis({ alloc: {} })).rejects.toThrow('genesis: config: expected an object')
    await expect(loadGethGenesis({ config: { chainId: 'one' }, alloc: {} })).rejects.toThrow(
      'genesis: config.chainId: not a quantity ("one")',
    )
    await expect(
      loadGethGenesis({ config: { chainId: 1 }, alloc: { '0x01': { balance: '0x1' } } }),
    ).rejects.toThrow('genesis: alloc.0x01: not a 20-byte address')
    await expect(
      loadGethGenesis({ config: { chainId: 1 }, alloc: { ['11'.repeat(20)]: { balance: 'lots' } } }),
    ).rejects.toThrow(`genesis: alloc.${'11'.repeat(20)}.balance: not a quantity`)
  })

  it('readForkchoice names the bad field', () => {
    expect(() => readForkchoice({ method: 'eth_call', params: [] })).toThrow('forkchoice: method')
    expect(() =>
      readForkchoice({ method: 'engine_forkchoiceUpdatedV3', params: [{ headBlockHash: '0x12' }] }),
    ).toThrow('params[0].headBlockHash')
  })
})

describe.skipIf(!present)(`import of the execution-apis chain${present ? '' : ' (skipped: corpus absent)'}`, () => {
  let genesisJson: unknown
  let rlp: Uint8Array
  let blocks: ImportedBlock[]
  let root: string

  beforeAll(async () => {
    genesisJson = JSON.parse(await readFile(`${fixtures}genesis.json`, 'utf8'))
    rlp = Uint8Array.from(await readFile(`${fixtures}chain.rlp`))
    const chain = await loadGethGenesis(genesisJson)
    blocks = await importChain(chain, rlp)
    root = bytesToHex(await chain.stateManager.getStateRoot())
  })

  it("builds geth's genesis block", async () => {
    const chain = await loadGethGenesis(genesisJson)
    const [firstHeader] = RLP.decode(rlp, true).data as unknown as [Uint8Array[]]
    const parentHash = bytesToHex(firstHeader[0]!)
    expect(bytesToHex(chain.genesisBlock.hash())).toBe(parentHash)
    expect(bytesToHex(chain.genesisBlock.hash())).toBe(
      '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99',
    )
    expect(chain.chainId).toBe(3503995874084926n)
    expect(chain.ttd).toBe(4732352n)
  })

  it('imports all 54 blocks up to the forkchoice head', async () => {
    expect(blocks).toHaveLength(54)
    const head = blocks.at(-1)!
    const forkchoice = readForkchoice(JSON.parse(await readFile(`${fixtures}headfcu.json`, 'utf8')))
    expect(bytesToHex(head.block.hash())).toBe(forkchoice.head)
    expect(root).toBe(bytesToHex(head.block.header.stateRoot))
  })

  it('fills the receipts data of each transaction', () => {
    const txs = blocks.flatMap(({ txs }) => txs)
    expect(txs.length).toBeGreaterThan(0)
    for (const { block, txs } of blocks) {
      expect(txs).toHaveLength(block.transactions.length)
      expect(txs.at(-1)?.cumulativeGasUsed ?? 0n).toBe(block.header.gasUsed)
    }
    // block 1 deploys the callenv contract (chain-extra/txinfo.json)
    expect(blocks[0]!.txs[0]!.contractAddress).toBe('0x9344b07175800259691961298ca11c824e65032d')
    const blobTx = txs.find((tx) => tx.blobGasUsed !== undefined)
    expect(blobTx?.blobGasUsed).toBe(131072n)
    expect(blobTx?.blobGasPrice).toBeGreaterThan(0n)
    for (const tx of txs) expect(tx.logs.every((log) => log.address.startsWith('0x'))).toBe(true)
    // receipts carry a post-state root before Byzantium (block 9), a status after
    expect(bytesToHex(blocks[0]!.txs[0]!.root!)).toMatch(/^0x[0-9a-f]{64}$/)
    expect(blocks[8]!.txs.every((tx) => tx.root === undefined)).toBe(true)
  })

  it('names the block and the field of a mismatch, and rolls back to the last good state', async () => {
    const items: Uint8Array[] = []
    let rest = rlp
    while (rest.length > 0 && items.length < 12) {
      const { data, remainder } = RLP.decode(rest, true)
      items.push(RLP.encode(data))
      rest = remainder
    }
    const [header, ...body] = RLP.decode(items[11]!) as unknown as [Uint8Array[], ...unknown[]]
    const want = bytesToHex(header[3]!)
    const corrupt = [header.map((field, i) => (i === 3 ? new Uint8Array(32).fill(0xab) : field)), ...body]
    items[11] = RLP.encode(corrupt as Parameters<typeof RLP.encode>[0])

    const chain = await loadGethGenesis(genesisJson)
    const stream = new Uint8Array(items.reduce((length, item) => length + item.length, 0))
    items.reduce((offset, item) => (stream.set(item, offset), offset + item.length), 0)
    await expect(importChain(chain, stream)).rejects.toThrow(
      `block 12: state root mismatch (got ${want}, want 0x${'ab'.repeat(32)})`,
    )
    expect(bytesToHex(await chain.stateManager.getStateRoot())).toBe(bytesToHex(blocks[10]!.block.header.stateRoot))
  })
})

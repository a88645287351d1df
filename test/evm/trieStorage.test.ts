import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Account, Address, MapDB, ValueEncoding, hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { stockEngine } from './installEngine.js'
import { flat } from '../../src/evm/trieStorage.js'
import { createDevCommon } from '../../src/evm/common.js'
import { createStateManager } from '../../src/evm/vm.js'

const nodesOf = (trie: MerklePatriciaTrie) =>
  (trie.database().db as unknown as { _database: Map<string, unknown> })._database

describe('trie storage', () => {
  it.skipIf(stockEngine)('copies of a trie that stores bytes store bytes too, and every root stays readable', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    const copy = trie.shallowCopy(false)
    await copy.put(utf8ToBytes('key'), utf8ToBytes('one'))
    const first = copy.root()
    await copy.put(utf8ToBytes('key'), utf8ToBytes('two'))
    const nodes = nodesOf(trie)
    expect(nodes.size).toBeGreaterThan(0)
    for (const value of nodes.values()) expect(value).toBeInstanceOf(Uint8Array)
    trie.root(first)
    expect(await trie.get(utf8ToBytes('key'))).toEqual(utf8ToBytes('one'))
    trie.root(copy.root())
    expect(await trie.get(utf8ToBytes('key'))).toEqual(utf8ToBytes('two'))
  })

  it('a trie over a database of hex strings keeps storing strings, and its copies read them', async () => {
    const trie = new MerklePatriciaTrie({ db: new MapDB(), valueEncoding: ValueEncoding.String })
    await trie.put(utf8ToBytes('key'), utf8ToBytes('value'))
    for (const value of nodesOf(trie).values()) expect(typeof value).toBe('string')
    expect(await trie.shallowCopy(false).get(utf8ToBytes('key'))).toEqual(utf8ToBytes('value'))
  })

  it.skipIf(stockEngine)("a state's storage writes land in its database as bytes, with the same root as before", async () => {
    const state = createStateManager(createDevCommon(31337n, 'prague'))
    const address = new Address(hexToBytes(`0x${'11'.repeat(20)}`))
    const copy = state.shallowCopy(false)
    await copy.putAccount(address, new Account(0n, 1n))
    await copy.putStorage(address, new Uint8Array(32).fill(1), hexToBytes('0x2a'))
    const root = await copy.getStateRoot()
    const nodes = nodesOf((state as unknown as { _trie: MerklePatriciaTrie })._trie)
    for (const value of nodes.values()) expect(value).toBeInstanceOf(Uint8Array)
    await state.setStateRoot(root)
    expect(await state.getStorage(address, new Uint8Array(32).fill(1))).toEqual(hexToBytes('0x2a'))
  })

  it('flat keeps the string as it is', () => {
    let built = ''
    for (let i = 0; i < 64; i++) built += (i % 16).toString(16)
    expect(flat(built)).toBe('0123456789abcdef'.repeat(4))
  })
})

import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB, utf8ToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { stockEngine } from './installEngine.js'

const bytes = (text: string) => utf8ToBytes(text)
const storeOf = (trie: MerklePatriciaTrie) => (trie.database().db as unknown as { _database: Map<string, unknown> })._database

describe('trie copies store nodes like their original', () => {
  it.skipIf(stockEngine)('a copy of a trie without a database writes bytes into the shared store, and both read each other', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    await trie.put(bytes('a'), bytes('one'))
    const copy = trie.shallowCopy(false)
    await copy.put(bytes('b'), bytes('two'))
    const values = [...storeOf(copy).values()]
    expect(values.length).toBeGreaterThan(1)
    for (const value of values) expect(value).toBeInstanceOf(Uint8Array)
    // The same root whichever trie wrote the nodes.
    const reference = new MerklePatriciaTrie({ useKeyHashing: true })
    await reference.put(bytes('a'), bytes('one'))
    await reference.put(bytes('b'), bytes('two'))
    expect(copy.root()).toEqual(reference.root())
    trie.root(copy.root())
    expect(await trie.get(bytes('b'))).toEqual(bytes('two'))
    expect(await copy.shallowCopy(false).get(bytes('a'))).toEqual(bytes('one'))
  })

  it('a copy of a trie over a string-encoding database keeps writing strings, still readable', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, db: new MapDB() })
    await trie.put(bytes('a'), bytes('one'))
    const copy = trie.shallowCopy(false)
    await copy.put(bytes('b'), bytes('two'))
    for (const value of storeOf(copy).values()) expect(typeof value).toBe('string')
    expect(await copy.get(bytes('a'))).toEqual(bytes('one'))
    expect(await copy.get(bytes('b'))).toEqual(bytes('two'))
  })
})

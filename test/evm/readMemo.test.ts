import { createEVM } from '@ethereumjs/evm'
import { CheckpointDB, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB, hexToBytes, utf8ToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { stockEngine } from './installEngine.js'

const bytes = (text: string) => utf8ToBytes(text)

describe('trie read memo', () => {
  it('answers by root: an old root still reads its old value, the new root the new one', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    await trie.put(bytes('key'), bytes('one'))
    const first = trie.root()
    expect(await trie.get(bytes('key'))).toEqual(bytes('one'))
    await trie.put(bytes('key'), bytes('two'))
    const second = trie.root()
    expect(await trie.get(bytes('key'))).toEqual(bytes('two'))
    trie.root(first)
    expect(await trie.get(bytes('key'))).toEqual(bytes('one'))
    trie.root(second)
    expect(await trie.get(bytes('key'))).toEqual(bytes('two'))
    expect(await trie.get(bytes('other'))).toBeNull()
  })

  it('reads inside a checkpoint see the checkpoint, and the revert restores the earlier value', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    await trie.put(bytes('key'), bytes('one'))
    trie.checkpoint()
    await trie.put(bytes('key'), bytes('two'))
    expect(await trie.get(bytes('key'))).toEqual(bytes('two'))
    await trie.revert()
    expect(await trie.get(bytes('key'))).toEqual(bytes('one'))
  })

  it('an empty trie reads nothing', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    expect(await trie.get(bytes('key'))).toBeNull()
  })

  it('a root whose nodes are missing still fails as before (not remembered as empty)', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    trie.root(hexToBytes(`0x${'ab'.repeat(32)}`))
    expect(await trie.get(bytes('key'))).toBeNull()
    await expect(trie.get(bytes('key'), true)).rejects.toThrow(/Missing node/)
  })

  it.skipIf(stockEngine)('a database read returns the same decoded array each time, and a value pending in a checkpoint wins', async () => {
    const db = new CheckpointDB({ db: new MapDB<string, Uint8Array>() })
    const key = hexToBytes(`0x${'01'.repeat(32)}`)
    await db.put(key, bytes('code'))
    const first = await db.get(key)
    expect(first).toEqual(bytes('code'))
    expect(await db.get(key)).toBe(first)
    db.checkpoint(new Uint8Array(32))
    await db.del(key)
    expect(await db.get(key)).toBeUndefined()
    await db.revert()
    expect(await db.get(key)).toBe(first)
  })
})

describe('jump-destination cache', () => {
  it('runs the same code object twice with the same result, and different code of the same length its own way', async () => {
    const evm = await createEVM()
    // PUSH1 4, JUMP, INVALID, JUMPDEST, PUSH1 v, PUSH1 0, MSTORE8, PUSH1 1, PUSH1 0, RETURN
    const program = (value: number) => hexToBytes(`0x600456fe5b60${value.toString(16).padStart(2, '0')}60005360016000f3`)
    const code = program(7)
    for (let i = 0; i < 2; i++) {
      const result = await evm.runCode({ code, gasLimit: 100_000n })
      expect(result.exceptionError).toBeUndefined()
      expect(result.returnValue).toEqual(new Uint8Array([7]))
    }
    const other = await evm.runCode({ code: program(9), gasLimit: 100_000n })
    expect(other.returnValue).toEqual(new Uint8Array([9]))
    // A jump to a byte that is no JUMPDEST in this code fails, whatever ran before.
    const bad = hexToBytes('0x600356fe5b600760005360016000f3')
    const failed = await evm.runCode({ code: bad, gasLimit: 100_000n })
    expect(failed.exceptionError?.error).toMatch(/^invalid JUMP/)
  })
})

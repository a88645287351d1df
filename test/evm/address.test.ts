import { getAddress, getContractAddress, keccak256 } from 'viem/utils'
import { privateKeyToAccount, publicKeyToAddress } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { checksumAddress, create2Address, publicKeyAddress } from '../../src/evm/address.js'
import { seededRandom } from './generators.js'

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as const
const random = seededRandom(19)
const bytes = random.bytes

describe('address (devnet keccak) against viem', () => {
  test('checksumAddress equals getAddress for any case of the input', () => {
    for (let i = 0; i < 200; i++) {
      const address = hex(bytes(20))
      const expected = getAddress(address)
      expect(checksumAddress(address)).toBe(expected)
      expect(checksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(expected)
      expect(checksumAddress(expected)).toBe(expected)
    }
  })

  test('checksumAddress refuses what is not 20 bytes of hex', () => {
    for (const bad of ['0x', '0x1234', `0x${'g'.repeat(40)}`, `${'a'.repeat(40)}`, `0x${'a'.repeat(41)}`])
      expect(() => checksumAddress(bad)).toThrow(/invalid/)
  })

  test('publicKeyAddress equals publicKeyToAddress', () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = privateKeyToAccount(hex(bytes(32)))
      expect(publicKeyAddress(Buffer.from(publicKey.slice(2), 'hex'))).toBe(publicKeyToAddress(publicKey))
    }
  })

  test('create2Address equals getContractAddress with CREATE2', () => {
    for (let i = 0; i < 50; i++) {
      const from = getAddress(hex(bytes(20)))
      const salt = keccak256(bytes(32))
      const bytecode = hex(bytes(1 + random.int(300)))
      expect(create2Address(from, salt, bytecode)).toBe(getContractAddress({ opcode: 'CREATE2', from, salt, bytecode }))
    }
  })
})

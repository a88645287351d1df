import type { Address, Hex } from 'viem'
import { keccak256 } from './keccak.js'

/*
 * Addresses computed with devnet's keccak (keccak.ts: native or
 * WebAssembly) instead of viem's pure-JS one. A start derives ten dev
 * addresses, checks the CREATE2 address of each dev account's smart account
 * and checksums every genesis address: some fifty hashes, run once, while
 * viem's keccak is still interpreted bytecode, which made them ~40 ms of the
 * CLI's cold start (a `--cpu-prof` of `devnet start`). Same results as
 * viem's getAddress / publicKeyToAddress / getContractAddress
 * (test/evm/address.test.ts).
 */

const hexBytes = (hex: string) => Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex')

/** EIP-55 checksum of a 20-byte address given as hex in any case; throws on anything else. */
export function checksumAddress(address: string): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`Address "${address}" is invalid.`)
  const lower = address.slice(2).toLowerCase()
  const hash = keccak256(Buffer.from(lower, 'ascii'))
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    // Nibble i of the hash: a letter is upper-case where that nibble is 8 or more.
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f
    const c = lower[i]!
    out += nibble >= 8 ? c.toUpperCase() : c
  }
  return out as Address
}

/** The address of an uncompressed secp256k1 public key (65 bytes, 0x04 first). */
export function publicKeyAddress(publicKey: Uint8Array): Address {
  const hash = keccak256(publicKey.subarray(1))
  return checksumAddress(`0x${Buffer.from(hash.subarray(12)).toString('hex')}`)
}

/** The CREATE2 address: keccak256(0xff ‖ from ‖ salt ‖ keccak256(initCode))[12:], checksummed. */
export function create2Address(from: Address, salt: Hex, initCode: Hex): Address {
  const data = Buffer.concat([Buffer.from([0xff]), hexBytes(from), hexBytes(salt), keccak256(hexBytes(initCode))])
  return checksumAddress(`0x${Buffer.from(keccak256(data).subarray(12)).toString('hex')}`)
}

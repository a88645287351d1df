import { createECDH, createHmac, pbkdf2Sync } from 'node:crypto'
import type { Address, Hex, LocalAccount } from 'viem'
import { publicKeyAddress } from '../evm/engine.js'
import { knownAddresses } from './knownAddresses.js'

/** A dev account: its key is known, so the node signs for it (eth_sendTransaction, eth_sign...). */
export type DevAccount = {
  address: Address
  privateKey: Hex
  /**
   * viem's `LocalAccount` for the key (eth_sign & co.), made on first use.
   * viem's accounts module is loaded then too, not with the node: in the CLI
   * bundle, evaluating it (its secp256k1, with the curve's hash-to-curve set
   * up) was ~3 ms of every start, which signs nothing.
   */
  account(): Promise<LocalAccount>
}

/** The order of secp256k1's group. */
const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The public key of `key` on secp256k1, through node:crypto (OpenSSL): no
 * native addon to load at start (the `secp256k1` binding's loading and
 * context set-up cost a start ~10 ms; signature recovery loads it when first
 * needed, src/evm/crypto.ts).
 */
export function publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array {
  const ecdh = createECDH('secp256k1')
  ecdh.setPrivateKey(key)
  return ecdh.getPublicKey(null, compressed ? 'compressed' : 'uncompressed')
}

/**
 * Memos of the curve work for the default mnemonic ("test test ... junk",
 * m/44'/60'/0'/0/0..19: the accounts every Anvil and Hardhat prints), so a
 * start with it makes no elliptic-curve multiplication at all: OpenSSL's
 * takes ~0.5 ms each, 11 of them for the default 10 accounts, ~6 ms of a
 * start's CPU. Keyed by the private key, so another mnemonic or path only
 * misses. test/node/accounts.test.ts recomputes every entry.
 */
export const knownCompressedKeys = new Map<string, string>([
  // m/44'/60'/0' and m/44'/60'/0'/0, the parents of a non-hardened step.
  ['bdc37e0491647f2e79b49dcd55a769d589853f6531bda4572079d3e4e6a3bd91', '0206b81bac860f5a7442a85664d339809955b3ac9a5782200095127ac78aab71f5'],
  ['dd23ca549a97cb330b011aebb674730df8b14acaee42d211ab45692699ab8ba5', '03b93015e4ada498248da1ed7041e749ccb07a4489e2e33b38405f5c93d44703e9'],
])

/**
 * The BIP-39 seed of the default mnemonic: 2048 rounds of PBKDF2-SHA512, ~1-2
 * ms of every start's CPU (loaded), between the first answer and the first
 * read. Keyed by the mnemonic's text; test/node/accounts.test.ts recomputes it.
 */
export const knownSeeds = new Map<string, string>([
  [
    'test test test test test test test test test test test junk',
    '9dfc3c64c2f8bede1533b6a79f8570e5943e0b8fd1cf77107adf7b72cef42185d564a3aee24cab43f80e3c4538087d70fc824eabbad596a23c97b6ee8322ccc0',
  ],
])

/** (tweak + key) mod n, BIP-32's child key; throws for the ~2^-127 chance of an invalid one, where BIP-32 would skip to the next index. */
function privateKeyTweakAdd(key: Uint8Array, tweak: Uint8Array): Uint8Array {
  const t = BigInt(`0x${Buffer.from(tweak).toString('hex')}`)
  const sum = (t + BigInt(`0x${Buffer.from(key).toString('hex')}`)) % curveOrder
  if (t >= curveOrder || sum === 0n) throw new Error('BIP-32: invalid child key')
  return Buffer.from(sum.toString(16).padStart(64, '0'), 'hex')
}

const memo = new Map<string, DevAccount[]>()

/**
 * Derives `count` accounts at m/44'/60'/0'/0/i, as Anvil and Hardhat do. The
 * seed (2048 rounds of PBKDF2) is computed once per mnemonic per process, so
 * many devnets in one test run do not each pay for it.
 *
 * BIP-39 seed and BIP-32 derivation run on node:crypto (HMAC-SHA512, PBKDF2,
 * and OpenSSL's secp256k1 for public keys): the same steps through @scure/bip32 and
 * viem's pure-JS curve took ~0.5 s, a third of the CLI's cold start (the
 * curve's first multiplication builds its precomputed tables). The parent
 * m/44'/60'/0'/0 is derived once, not once per account, and each account's
 * viem `LocalAccount` (for eth_sign & co.) is created on first use. The
 * address is hashed with devnet's keccak (src/evm/address.ts), not viem's.
 * test/node/accounts.test.ts checks the result against @scure/bip32 + viem.
 */
export function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  const key = `${count}:${mnemonic}`
  const cached = memo.get(key)
  if (cached) return cached
  const parent = derivePath(masterKey(mnemonicToSeed(mnemonic)), [hardened(44), hardened(60), hardened(0), 0])
  const accounts = Array.from({ length: count }, (_, i) => devAccount(childKey(parent, i).key))
  memo.set(key, accounts)
  return accounts
}

function devAccount(key: Uint8Array): DevAccount {
  const hex = Buffer.from(key).toString('hex')
  const privateKey = `0x${hex}` as Hex
  let account: Promise<LocalAccount> | undefined
  return {
    address: knownAddresses.get(hex) ?? publicKeyAddress(publicKeyCreate(key, false)),
    privateKey,
    account: () => (account ??= import('./localAccount.js').then(({ privateKeyToAccount }) => privateKeyToAccount(privateKey))),
  }
}

/** BIP-39 seed (no passphrase); rejects word counts BIP-39 does not have, as @scure/bip39 does. */
function mnemonicToSeed(mnemonic: string): Uint8Array {
  const normalized = mnemonic.normalize('NFKD')
  if (![12, 15, 18, 21, 24].includes(normalized.split(' ').length)) throw new Error('Invalid mnemonic')
  const known = knownSeeds.get(normalized)
  if (known !== undefined) return Buffer.from(known, 'hex')
  return pbkdf2Sync(normalized, 'mnemonic', 2048, 64, 'sha512')
}

type ExtendedKey = { key: Uint8Array; chainCode: Uint8Array }

const hardened = (index: number) => index + 0x80000000

function masterKey(seed: Uint8Array): ExtendedKey {
  const i = createHmac('sha512', 'Bitcoin seed').update(seed).digest()
  return { key: i.subarray(0, 32), chainCode: i.subarray(32) }
}

/** BIP-32 CKDpriv. */
function childKey(parent: ExtendedKey, index: number): ExtendedKey {
  const data = new Uint8Array(37)
  if (index >= 0x80000000) data.set(parent.key, 1)
  else {
    const known = knownCompressedKeys.get(Buffer.from(parent.key).toString('hex'))
    data.set(known ? Buffer.from(known, 'hex') : publicKeyCreate(parent.key, true), 0)
  }
  new DataView(data.buffer).setUint32(33, index)
  const i = createHmac('sha512', parent.chainCode).update(data).digest()
  const key = privateKeyTweakAdd(parent.key, i.subarray(0, 32))
  return { key, chainCode: i.subarray(32) }
}

const derivePath = (key: ExtendedKey, path: number[]) => path.reduce(childKey, key)

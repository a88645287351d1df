import { createECDH, createHmac, pbkdf2Sync } from 'node:crypto'
import type { Address, Hex, LocalAccount } from 'viem'
import { publicKeyAddress } from '../evm/engine.js'

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
export const knownAddresses = new Map<string, Address>([
  ['ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
  ['59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
  ['5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
  ['7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6', '0x90F79bf6EB2c4f870365E785982E1f101E93b906'],
  ['47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'],
  ['8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba', '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'],
  ['92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e', '0x976EA74026E726554dB657fA54763abd0C3a0aa9'],
  ['4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356', '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'],
  ['dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97', '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f'],
  ['2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6', '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'],
  ['f214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897', '0xBcd4042DE499D14e55001CcbB24a551F3b954096'],
  ['701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82', '0x71bE63f3384f5fb98995898A86B02Fb2426c5788'],
  ['a267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1', '0xFABB0ac9d68B0B445fB7357272Ff202C5651694a'],
  ['47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd', '0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec'],
  ['c526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa', '0xdF3e18d64BC6A983f673Ab319CCaE4f1a57C7097'],
  ['8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61', '0xcd3B766CCDd6AE721141F452C550Ca635964ce71'],
  ['ea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0', '0x2546BcD3c84621e976D8185a91A922aE77ECEc30'],
  ['689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd', '0xbDA5747bFD65F08deb54cb465eB87D40e51B197E'],
  ['de9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0', '0xdD2FD4581271e230360230F9337D5c0430Bf44C0'],
  ['df57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e', '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199'],
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

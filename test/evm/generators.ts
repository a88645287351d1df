import type { PrivateKeyAccount } from 'viem/accounts'

/** A seeded generator (mulberry32), so a failing random case can be replayed. */
export function seededRandom(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256))
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  return { next, int, bytes, pick, chance: (p: number) => next() < p }
}
export type Random = ReturnType<typeof seededRandom>

/** One raw signed transaction of each non-blob type (legacy, EIP-2930, EIP-1559, EIP-7702) from `account`. */
export async function signedOfEveryType(account: PrivateKeyAccount, extra: { data?: `0x${string}`; accessList?: { address: `0x${string}`; storageKeys: `0x${string}`[] }[] } = {}) {
  const base = { chainId: 31337, nonce: 3, to: account.address, value: 5n, gas: 50_000n, ...(extra.data ? { data: extra.data } : {}) }
  return [
    await account.signTransaction({ ...base, type: 'legacy', gasPrice: 10n }),
    await account.signTransaction({ ...base, type: 'eip2930', gasPrice: 10n, accessList: extra.accessList ?? [] }),
    await account.signTransaction({ ...base, type: 'eip1559', maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }),
    await account.signTransaction({
      ...base,
      type: 'eip7702',
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [await account.signAuthorization({ chainId: 31337, address: account.address, nonce: 4 })],
    }),
  ]
}

/**
 * What a dev account signs with (accounts.ts), loaded on its first signature.
 * Imported by name from here rather than as `import('viem/accounts')`: a
 * dynamic import of that module brings its whole namespace object into the
 * CLI bundle (every account kind, and @scure/bip39's word lists).
 */
export { privateKeyToAccount } from 'viem/accounts'

import { isIP } from 'node:net'

/** Loopback names and addresses: only this machine can connect. */
const isLoopback = (host: string) => {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return bare.startsWith('::ffff:127.')
}

/**
 * The warning printed when the devnet listens beyond this machine
 * (`--host 0.0.0.0`, a LAN address, a host name): its dev accounts' keys are
 * public and unlocked, so anyone who can reach the port can send their funds,
 * and every test method (state edits, fixtures) is open too.
 */
export function exposureWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined
  return [
    `devnet: WARNING: listening on ${host}, not only on this machine.`,
    'devnet: WARNING: the dev accounts are unlocked (eth_sendTransaction signs for them, their keys are public) and every',
    'devnet: WARNING: test method (anvil_setBalance, evm_revert, fixtures, ...) is open to anyone who can reach this port.',
  ].join('\n')
}

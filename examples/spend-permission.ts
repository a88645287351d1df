/**
 * Recurring charges from a smart account on a local devnet
 * (`npm run example -- spend-permission`): the buyer's smart account exists
 * from genesis at its CREATE2 address; the buyer funds it and signs a spend
 * permission (10.00 a day for 30 days) for a merchant, who charges it, runs
 * into the period allowance, charges again the next day (chain time moved
 * with evm_increaseTime), and finally is stopped by the owner's revoke. Then
 * an owner who empties the account after signing.
 *
 * The devnet runs in manual mode so the output is the same on every run.
 */
import { type EIP1193RequestFn, type Hex, createPublicClient, createWalletClient, custom, encodeFunctionData, parseAbi } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { getCode, writeContract } from 'viem/actions'
import { smartAccountAbi } from '../src/artifacts/smartAccount.js'
import { createDevnet } from '../src/index.js'
import {
  type PaymentsError,
  type SpendPermission,
  chargeSpendPermission,
  createSmartAccount,
  createSpendPermission,
  formatAmount,
  getSmartAccountAddress,
  parseAmount,
  readSpendPermission,
  revokeSpendPermission,
  signSpendPermission,
} from '../src/payments/index.js'

const mnemonic = 'test test test test test test test test test test test junk'
const owner = mnemonicToAccount(mnemonic, { addressIndex: 1 }).address
const merchant = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const day = 86_400

const short = (hex: string) => `${hex.slice(0, 10)}…${hex.slice(-4)}`
const step = (label: string, detail = '') => console.log(`  ${label.padEnd(22)} ${detail}`)
const title = (text: string) => console.log(`\n${text}`)
const refused = (error: unknown) => {
  step('refused', (error as PaymentsError).shortMessage)
  for (const line of (error as PaymentsError).metaMessages ?? []) step('', line)
}

const devnet = await createDevnet({ mining: { type: 'manual' }, clock: 'virtual', quiet: true })
// Manual mining: pre-confirm every submitted transaction at once, as the devnet's 200 ms ticker would.
const request = (async ({ method, params }: { method: string; params?: unknown }) => {
  if (method === 'eth_sendRawTransactionSync') {
    const hash = await devnet.request({ method: 'eth_sendRawTransaction', params: [(params as [Hex])[0]] })
    await devnet.preconfirm()
    return devnet.request({ method: 'eth_getTransactionReceipt', params: [hash] })
  }
  const result = await devnet.request<{ Parameters: unknown; ReturnType: unknown }>({ method, params })
  if (method === 'eth_sendTransaction' || method === 'eth_sendRawTransaction') await devnet.preconfirm()
  return result
}) as EIP1193RequestFn
const transport = custom({ request }, { retryCount: 0 })
// `pending` by default (viem's default on Base, whose chain sets experimental_preconfirmationTime):
// gas estimates then see pre-confirmed transactions, such as a transfer a moment ago.
const options = { chain: devnet.chain, transport, pollingInterval: 10, experimental_blockTag: 'pending' } as const
const client = createPublicClient(options)
const shop = createWalletClient({ ...options, account: merchant })
// The owner is a devnet account that signs over JSON-RPC, as a browser wallet would.
const ownerWallet = createWalletClient({ ...options, account: owner })
const token = devnet.token.address
const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function transfer(address to, uint256 value) returns (bool)'])
const balanceOf = (address: Hex) => client.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [address], blockTag: 'pending' })
const remaining = async (permission: SpendPermission) => {
  const state = await readSpendPermission({ client, permission })
  return `${formatAmount(state.remaining)} left in the period ${state.periodStart ?? '-'}…${state.periodEnd ?? '-'}${state.revoked ? ' (revoked)' : ''}`
}
/** Seals what is pre-confirmed, then moves chain time on. */
const advance = async (seconds: number) => {
  await devnet.seal()
  await devnet.request({ method: 'evm_increaseTime', params: [seconds] })
  await devnet.request({ method: 'evm_mine' })
}

try {
  title('Subscription S-1: 10.00 a day for 30 days')
  const account = getSmartAccountAddress({ owner })
  step('smart account', `${short(account)} (CREATE2, computed offline), code from genesis: ${(await getCode(client, { address: account }))!.length > 2}`)
  await writeContract(ownerWallet, { address: token, abi: erc20, functionName: 'transfer', args: [account, parseAmount('100')], chain: devnet.chain })
  step('funded', `${formatAmount(await balanceOf(account))} moved in by the owner`)
  const permission = await createSpendPermission({ client, account, spender: merchant.address, token, allowance: '10.00', period: day })
  const signature = await signSpendPermission({ permission, signer: ownerWallet })
  step('permission signed', `by the owner ${short(owner)}, verified through the account's ERC-1271 (not printed)`)
  const first = await chargeSpendPermission({ wallet: shop, client, permission, signature, amount: parseAmount('4') })
  step('charged 4.00', `${first.state}, gas ${first.receipt.gasUsed} (approves the permission on first use)`)
  const second = await chargeSpendPermission({ wallet: shop, client, permission, signature, amount: parseAmount('6') })
  step('charged 6.00', `${second.state}, gas ${second.receipt.gasUsed}; ${await remaining(permission)}`)
  step('charge 0.01 more', 'same period:')
  await chargeSpendPermission({ wallet: shop, client, permission, signature, amount: parseAmount('0.01') }).catch(refused)
  await advance(day)
  step('a day later', await remaining(permission))
  const third = await chargeSpendPermission({ wallet: shop, client, permission, signature, amount: parseAmount('10') })
  step('charged 10.00', `${third.state}, gas ${third.receipt.gasUsed}; account holds ${formatAmount(await balanceOf(account))}`)
  const revoked = await revokeSpendPermission({ wallet: ownerWallet, client, permission })
  step('owner revokes', `through account.execute, gas ${revoked.receipt.gasUsed}; ${await remaining(permission)}`)
  await advance(day)
  await chargeSpendPermission({ wallet: shop, client, permission, signature, amount: parseAmount('1') }).catch(refused)

  title('Subscription S-2: the owner empties the account after signing')
  const again = await createSpendPermission({ client, account, spender: merchant.address, token, allowance: '10.00', period: day })
  const againSignature = await signSpendPermission({ permission: again, signer: ownerWallet })
  const held = await balanceOf(account)
  const drain = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [owner, held] })
  await writeContract(ownerWallet, { address: account, abi: smartAccountAbi, functionName: 'execute', args: [token, 0n, drain], chain: devnet.chain })
  step('owner moves funds', `${formatAmount(held)} back out; the permission reserved nothing`)
  await chargeSpendPermission({ wallet: shop, client, permission: again, signature: againSignature, amount: parseAmount('5') }).catch(refused)

  title('Another owner: an account that does not exist yet')
  const stranger = mnemonicToAccount(mnemonic, { addressIndex: 3 }).address
  const created = await createSmartAccount({ wallet: shop, client, owner: stranger, index: 1n })
  step('created', `${short(created.address)} (index 1), deployed now: ${created.deployed}, gas ${created.receipt?.gasUsed}`)
} finally {
  await devnet.close()
}

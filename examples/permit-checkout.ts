/**
 * A variable-total checkout on a local devnet (`npm run example -- permit-checkout`):
 * the buyer signs an EIP-2612 permit for a cap plus an order naming the
 * merchant; once the final total is known the merchant captures it through
 * the checkout contract predeployed at genesis, which returns the rest and
 * leaves no allowance. Then orders that do not end in a payment: voided,
 * over the cap, past the deadline, and a buyer who drains the balance.
 *
 * The devnet runs in manual mode so the output is the same on every run; a
 * live devnet pre-confirms every ~200 ms and the code below would not change.
 */
import { type EIP1193RequestFn, type Hex, createPublicClient, createWalletClient, custom, parseAbi } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { writeContract } from 'viem/actions'
import { createDevnet } from '../src/index.js'
import {
  type PaymentsError,
  captureCheckoutOrder,
  createCheckoutOrder,
  formatAmount,
  parseAmount,
  predeployAddresses,
  readCheckoutOrderState,
  signCheckoutOrder,
  voidCheckoutOrder,
} from '../src/payments/index.js'

const mnemonic = 'test test test test test test test test test test test junk'
const buyer = mnemonicToAccount(mnemonic, { addressIndex: 1 }).address
const merchant = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const elsewhere = mnemonicToAccount(mnemonic, { addressIndex: 3 }).address

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
// The merchant holds its key; the buyer is a devnet account that signs over JSON-RPC, as a browser wallet would.
const shop = createWalletClient({ ...options, account: merchant })
const wallet = createWalletClient({ ...options, account: buyer })
const token = devnet.token.address
const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
])
const balanceOf = (address: Hex) => client.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [address], blockTag: 'pending' })
const checkout = predeployAddresses.permitCheckout

/** The buyer signs a cap for `orderId` (permit + order: two typed-data signatures). */
async function sign(orderId: string, cap: string, validFor = 3600) {
  const order = await createCheckoutOrder({ client, token, buyer, merchant: merchant.address, cap, orderId, validFor })
  const signatures = await signCheckoutOrder({ order, signer: wallet })
  return { order, signatures }
}

try {
  title('Order C-2001: 80.00 cap, the final total is 62.37')
  const before = { buyer: await balanceOf(buyer), merchant: await balanceOf(merchant.address) }
  const first = await sign('C-2001', '80.00')
  step('order built', `cap ${formatAmount(first.order.cap)} to ${short(first.order.merchant)}, deadline ${first.order.deadline}, permit nonce ${first.order.permitNonce}`)
  step('signed', 'EIP-2612 permit (spender: the checkout) + EIP-712 Order, both verified (not printed)')
  const captured = await captureCheckoutOrder({ wallet: shop, client, ...first, amount: parseAmount('62.37') })
  step('captured', `${captured.state}: tx ${short(captured.transactionHash)}, gas ${captured.receipt.gasUsed}`)
  step('buyer paid', formatAmount(before.buyer - (await balanceOf(buyer))))
  step('merchant received', formatAmount((await balanceOf(merchant.address)) - before.merchant))
  const left = await client.readContract({ address: token, abi: erc20, functionName: 'allowance', args: [buyer, checkout], blockTag: 'pending' })
  step('allowance left', `${formatAmount(left)} (the cap passed through the checkout; the rest went back)`)
  step('order state', await readCheckoutOrderState({ client, order: first.order }))
  step('capture again', 'same order, same signatures:')
  await captureCheckoutOrder({ wallet: shop, client, ...first, amount: 1n }).catch(refused)
  await devnet.seal()

  title('Order C-2002: voided by the merchant')
  const second = await sign('C-2002', '25.00')
  const voided = await voidCheckoutOrder({ wallet: shop, client, order: second.order })
  step('voided', `tx ${short(voided.transactionHash)}, gas ${voided.receipt.gasUsed}; state ${await readCheckoutOrderState({ client, order: second.order })}`)
  await captureCheckoutOrder({ wallet: shop, client, ...second, amount: 1n }).catch(refused)

  title('Order C-2003: the merchant asks for more than the cap')
  const third = await sign('C-2003', '30.00')
  await captureCheckoutOrder({ wallet: shop, client, ...third, amount: parseAmount('30.01') }).catch(refused)

  title('Order C-2004: captured after its deadline')
  const fourth = await sign('C-2004', '10.00', 600)
  await devnet.request({ method: 'evm_increaseTime', params: [601] })
  await devnet.request({ method: 'evm_mine' })
  step('chain time', `moved past the deadline ${fourth.order.deadline}`)
  await captureCheckoutOrder({ wallet: shop, client, ...fourth, amount: 1n }).catch(refused)

  title('Order C-2005: the buyer drains the balance after signing')
  const fifth = await sign('C-2005', '40.00')
  const balance = await balanceOf(buyer)
  await writeContract(wallet, { address: token, abi: erc20, functionName: 'transfer', args: [elsewhere, balance], chain: devnet.chain })
  step('buyer moves funds', `${formatAmount(balance)} sent elsewhere; the permit reserved nothing`)
  await captureCheckoutOrder({ wallet: shop, client, ...fifth, amount: parseAmount('12') }).catch(refused)
} finally {
  await devnet.close()
}

/**
 * One card-style checkout on a local devnet, end to end (`npm run example`):
 * the buyer signs an EIP-3009 authorization, the merchant stores it, checks
 * it, captures it and indexes the result. Then three orders that do not end in
 * a payment: a payer who drains the balance after signing, a voided order and
 * a canceled one.
 *
 * The devnet runs in manual mode so the output is the same on every run; a
 * live devnet pre-confirms every ~200 ms and seals every block on its own,
 * and the code below would not change.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type EIP1193RequestFn,
  type Hex,
  createPublicClient,
  createWalletClient,
  custom,
  parseAbi,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { writeContract } from 'viem/actions'
import { createDevnet } from '../src/index.js'
import {
  type PaymentsError,
  cancelAuthorization,
  capture,
  checkBeforeCapture,
  confirmCapture,
  createAuthorization,
  createSqliteStore,
  createTokenIndexer,
  formatAmount,
  readTokenDomain,
  signAuthorization,
  voidAuthorization,
} from '../src/payments/index.js'

const mnemonic = 'test test test test test test test test test test test junk'
const buyer = mnemonicToAccount(mnemonic, { addressIndex: 1 }).address
const otherBuyer = mnemonicToAccount(mnemonic, { addressIndex: 4 }).address
const merchant = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const elsewhere = mnemonicToAccount(mnemonic, { addressIndex: 3 }).address

const short = (hex: string) => `${hex.slice(0, 10)}…${hex.slice(-4)}`
const step = (label: string, detail = '') => console.log(`  ${label.padEnd(22)} ${detail}`)
const title = (text: string) => console.log(`\n${text}`)

const devnet = await createDevnet({ mining: { type: 'manual' }, clock: 'virtual' })
// Manual mining: pre-confirm every submitted transaction at once, as the
// devnet's 200 ms ticker would.
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
const client = createPublicClient({ chain: devnet.chain, transport, pollingInterval: 10 })
// The merchant holds its key; the buyers are devnet accounts that sign over
// JSON-RPC (eth_signTypedData_v4), as a browser wallet would.
const shop = createWalletClient({ chain: devnet.chain, transport, account: merchant, pollingInterval: 10 })
const wallet = (address: Hex) => createWalletClient({ chain: devnet.chain, transport, account: address, pollingInterval: 10 })
const token = devnet.token.address
const dir = mkdtempSync(join(tmpdir(), 'devnet-checkout-'))
const store = createSqliteStore({ path: join(dir, 'payments.sqlite') })
const indexer = createTokenIndexer({ store, token, client })
const chainNow = async () => Number((await client.getBlock({ blockTag: 'pending' })).timestamp) * 1000

try {
  title('Order A-1001: 12.50 USDC, captured')
  const domain = await readTokenDomain(client, token)
  step('domain read', `${domain.name} v${domain.version}, chain ${domain.chainId}, ${short(domain.verifyingContract)}`)
  const authorization = createAuthorization({ domain, from: buyer, to: merchant.address, amount: '12.50', now: await chainNow() })
  step(
    'authorization built',
    `${authorization.primaryType} ${formatAmount(authorization.value)} from ${short(buyer)} to ${short(merchant.address)}, valid ${authorization.validAfter}…${authorization.validBefore}, nonce ${short(authorization.nonce)}`,
  )
  const signature = await signAuthorization({ authorization, signer: wallet(buyer) })
  step('signed', `${(signature.length - 2) / 2}-byte signature, verified locally (not printed: it moves money)`)
  await store.insert({ orderId: 'A-1001', authorization, signature })
  step('stored', `state authorized, SQLite file mode ${(statSync(join(dir, 'payments.sqlite')).mode & 0o777).toString(8)}`)
  const check = await checkBeforeCapture({ client, authorization, signature, submitter: merchant.address })
  step('checked', check.ok ? `ok at pending block time ${check.timestamp}` : check.failures.map((f) => f.reason).join(', '))
  const captured = await capture({ wallet: shop, client, store, orderId: 'A-1001' })
  step('capture sent', `${captured.state}: tx ${short(captured.transactionHash)}, blockHash ${short(captured.receipt.blockHash)}`)
  await devnet.seal()
  const sealed = await confirmCapture({ client, store, orderId: 'A-1001' })
  step('block sealed', `${sealed.state} in block ${sealed.blockNumber} (${short(sealed.blockHash ?? '')})`)
  const pass = await indexer.poll()
  step('indexed', `blocks ${pass.fromBlock}…${pass.toBlock}: ${pass.added} token logs, ${pass.moves.length} records moved`)

  title('Order A-1002: the buyer drains the balance after signing')
  const draining = createAuthorization({ domain, from: buyer, to: merchant.address, amount: '40', now: await chainNow() })
  await store.insert({ orderId: 'A-1002', authorization: draining, signature: await signAuthorization({ authorization: draining, signer: wallet(buyer) }) })
  step('signed and stored', `${formatAmount(draining.value)} authorized`)
  const balance = await client.readContract({ address: token, abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [buyer], blockTag: 'pending' })
  await writeContract(wallet(buyer), { address: token, abi: parseAbi(['function transfer(address,uint256) returns (bool)']), functionName: 'transfer', args: [elsewhere, balance], chain: devnet.chain })
  step('buyer moves funds', `${formatAmount(balance)} sent elsewhere; the signature reserved nothing`)
  try {
    await capture({ wallet: shop, client, store, orderId: 'A-1002' })
  } catch (error) {
    step('capture refused', (error as PaymentsError).shortMessage)
    for (const line of (error as PaymentsError).metaMessages ?? []) step('', line)
  }
  step('record', (await store.get('A-1002'))?.state ?? '')

  title('Order A-1003: voided by the merchant')
  const voiding = createAuthorization({ domain, from: otherBuyer, to: merchant.address, amount: '5', now: await chainNow() })
  await store.insert({ orderId: 'A-1003', authorization: voiding, signature: await signAuthorization({ authorization: voiding, signer: wallet(otherBuyer) }) })
  const voided = await voidAuthorization(store, 'A-1003')
  step('voided', `${voided.state}: the backend will not submit it; the signature stays valid on chain until ${voiding.validBefore}`)

  title('Order A-1004: canceled on chain by the buyer')
  const canceling = createAuthorization({ domain, from: otherBuyer, to: merchant.address, amount: '7.25', now: await chainNow() })
  const cancelSignature = await signAuthorization({ authorization: canceling, signer: wallet(otherBuyer) })
  await store.insert({ orderId: 'A-1004', authorization: canceling, signature: cancelSignature })
  const canceled = await cancelAuthorization({ store, orderId: 'A-1004', wallet: shop, client, signer: wallet(otherBuyer) })
  step('canceled', `${canceled.record.state}: CancelAuthorization signed by the buyer, relayed in tx ${short(canceled.transactionHash)}`)
  try {
    await capture({ wallet: shop, client, authorization: canceling, signature: cancelSignature, check: false })
  } catch (error) {
    step('capture anyway', (error as PaymentsError).shortMessage)
  }

  await devnet.seal()
  const last = await indexer.poll()
  title('Records')
  step('indexer pass', `blocks ${last.fromBlock}…${last.toBlock}: ${last.added} new logs`)
  for (const record of await store.list())
    step(record.orderId, `${record.state.padEnd(11)}${record.history.map((h) => h.state).join(' → ')}${record.reason ? ` (${record.reason})` : ''}`)
} finally {
  await store.close()
  await devnet.close()
  rmSync(dir, { recursive: true, force: true })
}

import { type Hex, encodeFunctionData, parseAbi, zeroHash } from 'viem'
import { getEip712Domain, readContract, writeContract } from 'viem/actions'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createDevnet } from '../../src/index.js'
import {
  CaptureCheckError,
  type CheckoutOrder,
  type CheckoutSignatures,
  TransactionRevertedError,
  captureCheckoutOrder,
  checkBeforeCheckoutCapture,
  createCheckoutOrder,
  getSmartAccountAddress,
  predeployAddresses,
  readCheckoutOrderState,
  signCheckoutOrder,
  tokenAbi,
  voidCheckoutOrder,
} from '../../src/payments/index.js'
import { type Clients, type Devnet, createClients, merchantAccount, payerAccount, strangerAccount } from './utils.js'

const checkout = predeployAddresses.permitCheckout
const erc20 = parseAbi([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
])

describe('permit checkout on devnet', () => {
  let devnet: Devnet
  let clients: Clients
  let token: Hex
  let snapshot: Hex

  beforeAll(async () => {
    devnet = (await createDevnet({ mining: { type: 'manual' }, clock: 'virtual', quiet: true })) as unknown as Devnet
    clients = createClients(devnet)
    token = devnet.token.address
  })
  afterAll(async () => {
    await devnet.close()
  })
  beforeEach(async () => {
    snapshot = (await devnet.request({ method: 'evm_snapshot' } as never)) as Hex
  })
  afterEach(async () => {
    await devnet.request({ method: 'evm_revert', params: [snapshot] } as never)
  })

  const rpc = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never)
  const read = (functionName: 'balanceOf', address: Hex) =>
    readContract(clients.client, { address: token, abi: tokenAbi, functionName, args: [address], blockTag: 'pending' })
  const allowance = () =>
    readContract(clients.client, { address: token, abi: erc20, functionName: 'allowance', args: [payerAccount.address, checkout], blockTag: 'pending' })
  const reasons = (error: unknown) => (error as CaptureCheckError).failures.map((f) => f.reason)

  /** The buyer (a JSON-RPC account: the devnet signs) signs an 80.00 cap for order `id`. */
  async function order(id = 'A-1001', options: Partial<Parameters<typeof createCheckoutOrder>[0]> = {}) {
    const built = await createCheckoutOrder({
      client: clients.client,
      token,
      buyer: payerAccount.address,
      merchant: merchantAccount.address,
      cap: '80.00',
      orderId: id,
      ...options,
    })
    const signatures = await signCheckoutOrder({ order: built, signer: clients.payer })
    return { order: built, signatures }
  }
  const captureAs = (
    o: { order: CheckoutOrder; signatures: CheckoutSignatures },
    amount: bigint,
    extra: { check?: boolean; wallet?: Clients['merchant'] } = {},
  ) =>
    captureCheckoutOrder({ wallet: extra.wallet ?? clients.merchant, client: clients.client, ...o, amount, check: extra.check ?? true })

  test('default: pays the final amount to the signed merchant, returns the rest, leaves no allowance', async () => {
    const before = { buyer: await read('balanceOf', payerAccount.address), merchant: await read('balanceOf', merchantAccount.address) }
    const signed = await order()
    expect(signed.order).toMatchObject({ cap: 80_000_000n, permitNonce: 0n, domain: { name: 'PermitCheckout', verifyingContract: checkout } })
    expect(await readCheckoutOrderState({ client: clients.client, order: signed.order })).toBe('open')
    // The contract publishes the domain the library signs under (ERC-5267).
    const { domain } = await getEip712Domain(clients.client, { address: checkout })
    expect(domain).toEqual({ ...signed.order.domain, salt: zeroHash })

    const result = await captureAs(signed, 62_500_000n)
    expect(result.state).toBe('preconfirmed')
    expect(await read('balanceOf', payerAccount.address)).toBe(before.buyer - 62_500_000n)
    expect(await read('balanceOf', merchantAccount.address)).toBe(before.merchant + 62_500_000n)
    expect(await read('balanceOf', checkout)).toBe(0n)
    expect(await allowance()).toBe(0n)
    expect(await readCheckoutOrderState({ client: clients.client, order: signed.order })).toBe('captured')

    await devnet.seal()
    expect(await readCheckoutOrderState({ client: clients.client, order: signed.order, blockTag: 'latest' })).toBe('captured')
  })

  test('behavior: a permit front-run straight to the token does not block the capture', async () => {
    const signed = await order()
    await writeContract(clients.stranger, {
      address: token,
      abi: erc20,
      functionName: 'permit',
      args: [payerAccount.address, checkout, signed.order.cap, signed.order.deadline, signed.signatures.permitSignature],
    })
    expect(await allowance()).toBe(80_000_000n)
    await captureAs(signed, 80_000_000n)
    expect(await allowance()).toBe(0n)
  })

  test('behavior: a smart-account buyer (ERC-1271) signs with its owner key', async () => {
    const account = getSmartAccountAddress({ owner: payerAccount.address })
    await rpc('devnet_setTokenBalance', [account, '0x2faf080']) // 50.00
    const built = await createCheckoutOrder({
      client: clients.client,
      token,
      buyer: account,
      merchant: merchantAccount.address,
      cap: '50.00',
      orderId: 'A-1271',
    })
    const signatures = await signCheckoutOrder({ order: built, signer: payerAccount, client: clients.client })
    await captureAs({ order: built, signatures }, 20_000_000n)
    expect(await read('balanceOf', account)).toBe(30_000_000n)
    expect(await readCheckoutOrderState({ client: clients.client, order: built })).toBe('captured')
  })

  test('error: replay (a second capture of the same order)', async () => {
    const signed = await order()
    await captureAs(signed, 10_000_000n)
    expect(reasons(await captureAs(signed, 10_000_000n).catch((e) => e))).toContain('already-captured')
    const forced = await captureAs(signed, 10_000_000n, { check: false }).catch((e) => e)
    expect(forced).toBeInstanceOf(TransactionRevertedError)
    expect(forced).toMatchObject({ reason: 'already-captured', revertMessage: 'PermitCheckout: order already captured' })
  })

  test('error: over the cap', async () => {
    const signed = await order()
    const error = await captureAs(signed, 80_000_001n).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(reasons(error)).toEqual(['over-cap'])
    expect(await captureAs(signed, 80_000_001n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'over-cap' })
  })

  test('error: expired (past the deadline, in chain time)', async () => {
    const signed = await order('A-1001', { validFor: 600 })
    await rpc('evm_increaseTime', [601])
    await rpc('evm_mine')
    expect(reasons(await captureAs(signed, 1n).catch((e) => e))).toEqual(['expired'])
    expect(await captureAs(signed, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'expired' })
  })

  test('error: voided by the buyer, then by nobody else', async () => {
    const signed = await order()
    const payer = createClients(devnet).payer
    await voidCheckoutOrder({ wallet: payer, client: clients.client, order: signed.order })
    expect(await readCheckoutOrderState({ client: clients.client, order: signed.order })).toBe('voided')
    expect(reasons(await captureAs(signed, 1n).catch((e) => e))).toEqual(['voided'])
    expect(await captureAs(signed, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'voided' })
    // Voiding twice, or by a third party, reverts.
    expect(await voidCheckoutOrder({ wallet: clients.merchant, order: signed.order }).catch((e) => e)).toMatchObject({ reason: 'voided' })
    const other = await order('A-1002', { permitNonce: 0n })
    const stranger = await voidCheckoutOrder({ wallet: clients.stranger, order: other.order }).catch((e) => e)
    expect(stranger).toBeInstanceOf(TransactionRevertedError)
    expect(stranger).toMatchObject({ reason: 'caller-not-party' })
  })

  test('error: the merchant cannot redirect the funds or let someone else capture', async () => {
    const signed = await order()
    // Another account presenting the signatures is not the merchant.
    expect(reasons(await captureAs(signed, 1n, { wallet: clients.stranger }).catch((e) => e))).toEqual(['caller-not-merchant'])
    // Rewriting the merchant in the order breaks the buyer's order signature.
    const redirected = { ...signed, order: { ...signed.order, merchant: strangerAccount.address } }
    const forced = await captureAs(redirected, 1n, { wallet: clients.stranger, check: false }).catch((e) => e)
    expect(forced).toMatchObject({ reason: 'invalid-signature', revertMessage: 'PermitCheckout: invalid order signature' })
    // So does raising the cap.
    const raised = { ...signed, order: { ...signed.order, cap: 1_000_000_000n } }
    expect(await captureAs(raised, 500_000_000n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'invalid-signature' })
  })

  test('error: paused, then blacklisted (token cheats)', async () => {
    const signed = await order()
    await rpc('devnet_setTokenPaused', [true])
    expect(reasons(await captureAs(signed, 1n).catch((e) => e))).toEqual(['paused'])
    expect(await captureAs(signed, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'paused', revertMessage: 'Pausable: paused' })
    await rpc('devnet_setTokenPaused', [false])
    await rpc('devnet_setTokenBlacklisted', [payerAccount.address, true])
    const check = await checkBeforeCheckoutCapture({ client: clients.client, order: signed.order, amount: 1n, submitter: merchantAccount.address })
    expect(check.failures).toMatchObject([{ reason: 'blacklisted', message: expect.stringContaining('buyer') }])
    expect(await captureAs(signed, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'blacklisted' })
  })

  test('error: the buyer drains the funds after signing', async () => {
    const signed = await order()
    const balance = await read('balanceOf', payerAccount.address)
    await devnet.request({
      method: 'eth_sendTransaction',
      params: [{ from: payerAccount.address, to: token, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [strangerAccount.address, balance - 1_000_000n] }) }],
    } as never)
    await devnet.preconfirm()
    const error = await captureAs(signed, 1_000_000n).catch((e) => e)
    expect(reasons(error)).toEqual(['insufficient-balance'])
    expect(await captureAs(signed, 1_000_000n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'insufficient-balance' })
    expect(await readCheckoutOrderState({ client: clients.client, order: signed.order })).toBe('open')
  })

  test('error: a second order signed on a used permit nonce', async () => {
    const first = await order('A-1')
    const second = await order('A-2')
    expect(second.order.permitNonce).toBe(first.order.permitNonce)
    await captureAs(first, 1n)
    expect(reasons(await captureAs(second, 1n).catch((e) => e))).toEqual(['permit-unusable'])
    expect(await captureAs(second, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'permit-unusable' })
  })
})

import { type Hex, encodeFunctionData } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { getCode, readContract } from 'viem/actions'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { smartAccountAbi } from '../../src/artifacts/smartAccount.js'
import { smartAccountFactoryAbi } from '../../src/artifacts/smartAccountFactory.js'
import { createDevnet } from '../../src/index.js'
import {
  CaptureCheckError,
  type SpendPermission,
  TransactionRevertedError,
  chargeSpendPermission,
  createSmartAccount,
  createSpendPermission,
  getSmartAccountAddress,
  predeployAddresses,
  readSpendPermission,
  revokeSpendPermission,
  signSpendPermission,
  tokenAbi,
} from '../../src/payments/index.js'
import { type Clients, type Devnet, createClients, merchantAccount, mnemonic, payerAccount, strangerAccount } from './utils.js'

const day = 86_400
/** The payer's smart account, deployed at genesis (index 0). */
const account = getSmartAccountAddress({ owner: payerAccount.address })

describe('spend permissions on devnet', () => {
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
    // 100.00 in the account: what the owner moved there to pay subscriptions from.
    await rpc('devnet_setTokenBalance', [account, '0x5f5e100'])
  })
  afterEach(async () => {
    await devnet.request({ method: 'evm_revert', params: [snapshot] } as never)
  })

  const rpc = (method: string, params: unknown[] = []) => devnet.request({ method, params } as never)
  const balanceOf = (address: Hex) =>
    readContract(clients.client, { address: token, abi: tokenAbi, functionName: 'balanceOf', args: [address], blockTag: 'pending' })
  const reasons = (error: unknown) => (error as CaptureCheckError).failures.map((f) => f.reason)
  /** Seals what is pre-confirmed (at its time), then moves chain time on and mines. */
  const advance = async (seconds: number) => {
    await devnet.seal()
    await rpc('evm_increaseTime', [seconds])
    await rpc('evm_mine')
  }

  /** The payer (owner, signing over JSON-RPC) lets the merchant charge 10.00 a day for `days` days. */
  async function permit(options: Partial<Parameters<typeof createSpendPermission>[0]> = {}) {
    const permission = await createSpendPermission({
      client: clients.client,
      account,
      spender: merchantAccount.address,
      token,
      allowance: '10.00',
      period: day,
      salt: 1n,
      ...options,
    })
    const signature = await signSpendPermission({ permission, signer: clients.payer })
    return { permission, signature }
  }
  const charge = (p: { permission: SpendPermission; signature: Hex }, amount: bigint, extra: { check?: boolean; wallet?: Clients['merchant'] } = {}) =>
    chargeSpendPermission({ wallet: extra.wallet ?? clients.merchant, client: clients.client, ...p, amount, check: extra.check ?? true })

  test('genesis: every dev account owns a smart account at its counterfactual CREATE2 address', async () => {
    for (const index of [0, 1, 9]) {
      const owner = mnemonicToAccount(mnemonic, { addressIndex: index }).address
      const address = getSmartAccountAddress({ owner })
      expect(await getCode(clients.client, { address })).not.toBe(undefined)
      expect(await readContract(clients.client, { address, abi: smartAccountAbi, functionName: 'owner' })).toBe(owner)
      expect(await readContract(clients.client, { address, abi: smartAccountAbi, functionName: 'spendPermissionManager' })).toBe(
        predeployAddresses.spendPermissionManager,
      )
      const onChain = await readContract(clients.client, {
        address: predeployAddresses.smartAccountFactory,
        abi: smartAccountFactoryAbi,
        functionName: 'getAddress',
        args: [owner, 0n],
      })
      expect(onChain).toBe(address)
    }
  })

  test('createSmartAccount: deploys another owner’s account at the address computed offline, once', async () => {
    const owner = strangerAccount.address
    const address = getSmartAccountAddress({ owner, index: 7n })
    expect(await getCode(clients.client, { address, blockTag: 'pending' })).toBe(undefined)
    expect(await createSmartAccount({ wallet: clients.stranger, owner, index: 7n })).toMatchObject({ address, deployed: true, receipt: { status: 'success' } })
    expect(await readContract(clients.client, { address, abi: smartAccountAbi, functionName: 'owner', blockTag: 'pending' })).toBe(owner)
    expect(await createSmartAccount({ wallet: clients.stranger, owner, index: 7n })).toEqual({ address, deployed: false })
  })

  test('default: charges up to the allowance each period; periods follow chain time', async () => {
    const p = await permit()
    expect(await readSpendPermission({ client: clients.client, ...p })).toMatchObject({ approved: false, status: 'active', remaining: 10_000_000n })
    await charge(p, 4_000_000n)
    await charge(p, 6_000_000n)
    expect(await balanceOf(account)).toBe(90_000_000n)
    let state = await readSpendPermission({ client: clients.client, ...p })
    expect(state).toMatchObject({ approved: true, revoked: false, spent: 10_000_000n, remaining: 0n, periodStart: p.permission.start })
    expect(state.periodEnd).toBe(p.permission.start + day)

    // Replay within the period: over the allowance.
    const error = await charge(p, 1n).catch((e) => e)
    expect(error).toBeInstanceOf(CaptureCheckError)
    expect(reasons(error)).toEqual(['over-allowance'])
    const forced = await charge(p, 1n, { check: false }).catch((e) => e)
    expect(forced).toBeInstanceOf(TransactionRevertedError)
    expect(forced).toMatchObject({ reason: 'over-allowance', revertMessage: 'SpendPermissionManager: exceeds period allowance' })

    // The next period starts with the whole allowance.
    await advance(day)
    state = await readSpendPermission({ client: clients.client, ...p })
    expect(state).toMatchObject({ spent: 0n, remaining: 10_000_000n, periodStart: p.permission.start + day })
    await charge(p, 10_000_000n)
    expect(await balanceOf(account)).toBe(80_000_000n)
  })

  test('error: expired (at the end) and not yet started', async () => {
    const p = await permit({ end: undefined, period: day })
    const short = await permit({ salt: 2n, end: p.permission.start + 2 * day })
    await advance(2 * day)
    expect(reasons(await charge(short, 1n).catch((e) => e))).toEqual(['expired'])
    expect(await charge(short, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'expired' })
    const later = await permit({ salt: 3n, start: p.permission.start + 10 * day })
    expect(reasons(await charge(later, 1n).catch((e) => e))).toEqual(['not-yet-valid'])
  })

  test('error: revoked by the owner (through the account), and by the spender', async () => {
    const p = await permit()
    await charge(p, 1_000_000n)
    await revokeSpendPermission({ wallet: createClients(devnet).payer, client: clients.client, permission: p.permission })
    expect(await readSpendPermission({ client: clients.client, ...p })).toMatchObject({ revoked: true, remaining: 0n })
    expect(reasons(await charge(p, 1n).catch((e) => e))).toEqual(['revoked'])
    expect(await charge(p, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'revoked' })

    // Revoked before its first charge: the signature can never approve it.
    const unused = await permit({ salt: 9n })
    await revokeSpendPermission({ wallet: clients.merchant, permission: unused.permission })
    expect(await charge(unused, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'revoked' })
    // A stranger can neither revoke (not the owner) nor charge (not the spender).
    expect(await revokeSpendPermission({ wallet: clients.stranger, permission: p.permission }).catch((e) => e)).toMatchObject({
      reason: 'caller-not-owner',
    })
    expect(await charge(unused, 1n, { wallet: clients.stranger, check: false }).catch((e) => e)).toMatchObject({
      reason: 'caller-not-spender',
    })
  })

  test('error: a forged or altered permission is refused', async () => {
    const p = await permit()
    const raised = { ...p, permission: { ...p.permission, allowance: 1_000_000_000n } }
    expect(await charge(raised, 50_000_000n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'invalid-signature' })
    const elsewhere = { ...p, permission: { ...p.permission, spender: strangerAccount.address } }
    expect(await charge(elsewhere, 1n, { wallet: clients.stranger, check: false }).catch((e) => e)).toMatchObject({
      reason: 'invalid-signature',
    })
  })

  test('error: paused, then blacklisted (token cheats)', async () => {
    const p = await permit()
    await rpc('devnet_setTokenPaused', [true])
    expect(reasons(await charge(p, 1n).catch((e) => e))).toEqual(['paused'])
    expect(await charge(p, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'paused', revertMessage: 'Pausable: paused' })
    await rpc('devnet_setTokenPaused', [false])
    await rpc('devnet_setTokenBlacklisted', [account, true])
    expect(reasons(await charge(p, 1n).catch((e) => e))).toEqual(['blacklisted'])
    expect(await charge(p, 1n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'blacklisted' })
    // Nothing was spent: the failed charges left the period untouched.
    await rpc('devnet_setTokenBlacklisted', [account, false])
    expect(await readSpendPermission({ client: clients.client, ...p })).toMatchObject({ remaining: 10_000_000n })
  })

  test('error: the owner drains the account after signing', async () => {
    const p = await permit()
    const drain = encodeFunctionData({
      abi: smartAccountAbi,
      functionName: 'execute',
      args: [token, 0n, encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [payerAccount.address, 99_000_000n] })],
    })
    await rpc('eth_sendTransaction', [{ from: payerAccount.address, to: account, data: drain }])
    await devnet.preconfirm()
    expect(await balanceOf(account)).toBe(1_000_000n)
    expect(reasons(await charge(p, 5_000_000n).catch((e) => e))).toEqual(['insufficient-balance'])
    expect(await charge(p, 5_000_000n, { check: false }).catch((e) => e)).toMatchObject({ reason: 'insufficient-balance' })
    await charge(p, 1_000_000n)
    expect(await balanceOf(account)).toBe(0n)
  })
})

import { Contract, JsonRpcProvider, Wallet, parseEther, parseUnits } from 'ethers'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { type StartedDevnet, startDevnet } from '../../src/index.js'

// ethers v6 unmodified against devnet over HTTP: the provider probes the
// network, estimates gas, fills fees and nonces, waits for receipts and
// decodes events on its own, so this catches any answer shape ethers rejects.
let devnet: StartedDevnet
let provider: JsonRpcProvider

beforeAll(async () => {
  // Auto mining, as a wallet-facing user would run it: every transaction is sealed as it arrives.
  devnet = await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
  provider = new JsonRpcProvider(devnet.url, undefined, { staticNetwork: true, pollingInterval: 20 })
})
afterAll(async () => {
  provider?.destroy()
  await devnet?.close()
})

describe('ethers v6', () => {
  test('reads the network, balances and blocks', async () => {
    const network = await provider.getNetwork()
    expect(network.chainId).toBe(31337n)
    expect(await provider.getBalance(devnet.accounts[0]!.address)).toBe(parseEther('10000'))
    const block = await provider.getBlock('latest')
    expect(block?.number).toBe(await provider.getBlockNumber())
    const fee = await provider.getFeeData()
    expect(fee.maxFeePerGas).toBeGreaterThan(0n)
  })

  test('a Wallet sends ETH with fees, nonce and gas filled by ethers, and waits for the receipt', async () => {
    const wallet = new Wallet(devnet.accounts[1]!.privateKey, provider)
    const to = Wallet.createRandom().address
    const tx = await wallet.sendTransaction({ to, value: parseEther('1.5') })
    const receipt = await tx.wait()
    expect(receipt?.status).toBe(1)
    expect(receipt?.hash).toBe(tx.hash)
    expect(await provider.getBalance(to)).toBe(parseEther('1.5'))
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(1)
    // (ethers caches an identical request for 250 ms, so `pending`, which it read to fill the nonce, is not re-read here.)
    const fetched = await provider.getTransaction(tx.hash)
    expect(fetched?.from).toBe(wallet.address)
  })

  test('a Contract reads the token, transfers and decodes the Transfer event', async () => {
    const wallet = new Wallet(devnet.accounts[2]!.privateKey, provider)
    const token = new Contract(devnet.token.address, paymentTokenAbi as never, wallet)
    expect(await token.getFunction('decimals')()).toBe(6n)
    expect(await token.getFunction('symbol')()).toBe('USDC')
    const to = Wallet.createRandom().address
    const tx = await token.getFunction('transfer')(to, parseUnits('12.5', 6))
    const receipt = await tx.wait()
    const parsed = receipt.logs.map((log: { topics: string[]; data: string }) => token.interface.parseLog(log))
    expect(parsed[0]?.name).toBe('Transfer')
    expect(parsed[0]?.args.to).toBe(to)
    expect(await token.getFunction('balanceOf')(to)).toBe(12_500_000n)
    const events = await token.queryFilter(token.filters.Transfer!(undefined, to))
    expect(events).toHaveLength(1)
  })

  test('a reverting call surfaces the revert reason', async () => {
    const wallet = new Wallet(devnet.accounts[3]!.privateKey, provider)
    const token = new Contract(devnet.token.address, paymentTokenAbi as never, wallet)
    await expect(token.getFunction('transfer').staticCall(Wallet.createRandom().address, 10n ** 30n)).rejects.toThrow(
      /transfer amount exceeds balance/,
    )
  })
})

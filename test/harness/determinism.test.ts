import { type Hex, encodeFunctionData, keccak256, parseEther, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { paymentTokenAbi } from '../../src/artifacts/paymentToken.js'
import { harnessDevnet } from './helpers.js'

/**
 * The same scripted sequence on two fresh devnets: transfers, EIP-3009
 * authorizations, time moves, seals, snapshots and reverts, cheats and an
 * impersonated send. Every block hash and receipt must match (invariant I6).
 */
async function runScript() {
  const h = await harnessDevnet()
  const { devnet, rpc, transfer } = h
  const [alice, bob, carol] = devnet.accounts
  const payer = privateKeyToAccount(alice!.privateKey)
  const domain = { name: devnet.config.token.name, version: '2', chainId: devnet.chain.id, verifyingContract: devnet.token.address }
  const now = () => BigInt(devnet.node.pending().env.timestamp)

  /** A transferWithAuthorization signed by Alice, submitted by `submitter`. */
  const authorize = async (label: string, value: bigint, submitter: number) => {
    const message = {
      from: payer.address, to: carol!.address, value, validAfter: 0n, validBefore: now() + 3600n,
      nonce: keccak256(stringToHex(label)),
    }
    const signature = await payer.signTypedData({
      domain, primaryType: 'TransferWithAuthorization', message,
      types: {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
        ],
      },
    })
    const input = encodeFunctionData({
      abi: paymentTokenAbi, functionName: 'transferWithAuthorization',
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as never,
    })
    return (await rpc('eth_sendTransaction', { from: devnet.accounts[submitter]!.address, to: devnet.token.address, data: input })) as Hex
  }

  const hashes: Hex[] = []
  await transfer(0, bob!.address, parseEther('1'))
  hashes.push(await authorize('first', 1_000_000n, 1))
  await devnet.preconfirm()
  await rpc('evm_increaseTime', 30)
  await devnet.seal()
  const snapshot = await rpc('evm_snapshot')
  await transfer(1, carol!.address, parseEther('2'))
  await rpc('anvil_mine', '0x2', '0xc')
  await rpc('evm_revert', snapshot)
  h.forgetNonces()
  hashes.push(await authorize('second', 2_500_000n, 2))
  await rpc('anvil_setBalance', devnet.accounts[3]!.address, '0x1234')
  await rpc('anvil_impersonateAccount', '0x00000000000000000000000000000000000000cc')
  await rpc('anvil_setBalance', '0x00000000000000000000000000000000000000cc', `0x${parseEther('1').toString(16)}`)
  hashes.push((await rpc('eth_sendTransaction', { from: '0x00000000000000000000000000000000000000cc', to: bob!.address, value: '0x10' })) as Hex)
  await rpc('evm_setNextBlockTimestamp', Number(devnet.node.chain.head().block.header.timestamp + 1000n))
  await devnet.seal()
  await rpc('anvil_setBlockTimestampInterval', 7)
  await transfer(2, bob!.address, 5n)
  await rpc('anvil_mine', '0x3')

  const height = devnet.node.chain.height()
  const blocks: Hex[] = []
  const receipts: unknown[] = []
  for (let n = 0n; n <= height; n++) {
    const block = await rpc('eth_getBlockByNumber', `0x${n.toString(16)}`, false)
    blocks.push(block.hash)
    for (const tx of block.transactions) receipts.push(await rpc('eth_getTransactionReceipt', tx))
  }
  await devnet.close()
  return { blocks, receipts, hashes }
}

describe('determinism', () => {
  test('the same scripted sequence on two fresh devnets gives the same block hashes and receipts', async () => {
    const first = await runScript()
    const second = await runScript()
    expect(first.blocks.length).toBe(6)
    expect(first.receipts.length).toBeGreaterThanOrEqual(5)
    // Every authorization succeeded: the script did what it says.
    for (const hash of first.hashes)
      expect((first.receipts as { transactionHash: Hex; status: Hex }[]).find((r) => r.transactionHash === hash)?.status).toBe('0x1')
    expect(second.blocks).toEqual(first.blocks)
    expect(second.receipts).toEqual(first.receipts)
  })
})

/**
 * The requests the build's code-cache run (scripts/bundle.mjs) sends the CLI
 * before it saves its V8 code caches: what a client of a fresh devnet
 * sends first, so that the caches hold the bytecode of those paths too and
 * a fresh process skips compiling them at their first use.
 *
 * Why: V8 compiles a function when it is first called, and a code cache
 * made after running holds every function compiled so far. A cache made
 * after one eth_chainId held only what a start compiles, so a fresh node's
 * first transactions, calls and simulations each paid for parsing and
 * compiling hundreds of functions (README.md, "Startup: what a cold start
 * costs", has the figures).
 *
 * Deterministic (fixed keys, the dev mnemonic, a node started with
 * `--mining manual`): the same functions compile at every build. Every
 * answer is checked, so a method whose shape changed stops the workload
 * with an error (the build warns, and saves what was compiled up to there)
 * instead of silently caching an error path.
 */
import { encodeAbiParameters, encodeFunctionData, keccak256, pad, parseAbi, parseSignature, stringToHex, toHex } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'

const token = '0x3009300930093009300930093009300930093009'
const abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])
const TRANSFER_TOPIC = keccak256(stringToHex('Transfer(address,address,uint256)'))
const fees = { maxFeePerGas: 10n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n }
const label = (text) => `0x${keccak256(stringToHex(text)).slice(26)}`

/**
 * Sends the workload to the devnet at `url` (started with the default
 * mnemonic, chain id, token and `--mining manual`); rejects on the first
 * error answer. Returns how many requests it sent.
 */
export async function runCodeCacheWorkload(url) {
  let id = 0
  const call = async (method, params = []) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
    const body = await response.json()
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
  const mnemonic = 'test test test test test test test test test test test junk'
  const [alice, bob] = [0, 1].map((addressIndex) => mnemonicToAccount(mnemonic, { addressIndex }))
  const authorizer = privateKeyToAccount(keccak256(stringToHex('devnet-code-cache-authorizer')))
  const chainId = Number(await call('eth_chainId'))
  const nonces = new Map()
  const sign = async (account, tx) => {
    const nonce = nonces.get(account.address) ?? Number(await call('eth_getTransactionCount', [account.address, 'pending']))
    nonces.set(account.address, nonce + 1)
    return account.signTransaction({ type: 'eip1559', chainId, nonce, value: 0n, ...fees, ...tx })
  }
  const tokenCall = (functionName, args) => encodeFunctionData({ abi, functionName, args })
  const receipt = async (hash) => {
    const got = await call('eth_getTransactionReceipt', [hash])
    if (got?.status !== '0x1') throw new Error(`transaction ${hash}: receipt ${JSON.stringify(got)}`)
    return got
  }

  // What a client reads first.
  await call('eth_blockNumber')
  await call('net_version')
  await call('eth_gasPrice')
  await call('eth_maxPriorityFeePerGas')
  await call('eth_getBlockByNumber', ['latest', false])
  await call('eth_getCode', [token, 'latest'])
  await call('devnet_setTokenBalance', [authorizer.address, toHex(10n ** 12n)])

  // Transactions, several rounds: signed ETH and token transfers and an EIP-3009 receiveWithAuthorization, and
  // one the node signs; preconfirmed (the pending layer), then sealed, as a timer would.
  const domain = { name: 'USD Coin', version: '2', chainId, verifyingContract: token }
  const types = {
    ReceiveWithAuthorization: [
      { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
    ],
  }
  const hashes = []
  for (let round = 0; round < 4; round++) {
    const sent = []
    for (let i = 0; i < 3; i++) {
      sent.push(await call('eth_sendRawTransaction', [await sign(alice, { to: label(`eth-${round}-${i}`), value: 10n ** 9n, gas: 21_000n })]))
      sent.push(await call('eth_sendRawTransaction', [await sign(bob, { to: token, data: tokenCall('transfer', [label(`token-${round}-${i}`), 1_000n]), gas: 100_000n })]))
    }
    const message = { from: authorizer.address, to: alice.address, value: 1_000n, validAfter: 0n, validBefore: 2n ** 40n, nonce: keccak256(stringToHex(`auth-${round}`)) }
    const { r, s, v, yParity } = parseSignature(await authorizer.signTypedData({ domain, types, primaryType: 'ReceiveWithAuthorization', message }))
    const data = tokenCall('receiveWithAuthorization', [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v ?? 27n + BigInt(yParity)), r, s])
    sent.push(await call('eth_sendRawTransaction', [await sign(alice, { to: token, data, gas: 200_000n })]))
    sent.push(await call('eth_sendTransaction', [{ from: bob.address, to: label(`unsigned-${round}`), value: toHex(1n) }]))
    nonces.delete(bob.address)
    await call('devnet_preconfirm')
    // Pending reads: the pre-confirmed layer.
    await receipt(sent[0])
    await call('eth_getBalance', [label(`eth-${round}-0`), 'pending'])
    await call('eth_getTransactionCount', [alice.address, 'pending'])
    await call('eth_getBlockByNumber', ['pending', false])
    await call('eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending', address: token, topics: [TRANSFER_TOPIC] }])
    await call('devnet_seal')
    for (const hash of sent) await receipt(hash)
    await call('eth_getTransactionByHash', [sent[1]])
    hashes.push(...sent)
  }
  await call('evm_mine')

  // Reads.
  for (let i = 0; i < 10; i++) {
    await call('eth_getBalance', [alice.address, 'latest'])
    await call('eth_call', [{ to: token, data: tokenCall('balanceOf', [label(`token-0-${i % 3}`)]) }, 'latest'])
  }
  await call('eth_estimateGas', [{ from: alice.address, to: token, data: tokenCall('transfer', [bob.address, 1n]) }])
  await call('eth_estimateGas', [{ from: alice.address, to: bob.address, value: toHex(1n) }])
  await call('eth_feeHistory', ['0x4', 'latest', [25, 75]])
  await call('eth_getBlockByNumber', ['latest', true])
  await call('eth_getBlockReceipts', ['latest'])
  await call('eth_getStorageAt', [token, '0x0', 'latest'])
  const range = { fromBlock: '0x1', toBlock: 'latest' }
  await call('eth_getLogs', [{ ...range, address: token, topics: [TRANSFER_TOPIC] }])
  await call('eth_getLogs', [{ ...range, topics: [TRANSFER_TOPIC, pad(bob.address)] }])
  await call('eth_getLogs', [{ blockHash: (await receipt(hashes[1])).blockHash }])

  // eth_simulateV1: overrides, one call and many, traceTransfers with validation.
  // The sender holds tokens from genesis; the stateDiff only exercises the override path.
  const sender = alice.address
  const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [label('sim-slot'), 0n]))
  const stateOverrides = { [sender]: { balance: toHex(10n ** 21n) }, [token]: { stateDiff: { [slot]: pad(toHex(10n ** 12n)) } } }
  const transfer = (to) => ({ from: sender, to: token, data: tokenCall('transfer', [to, 1_000n]) })
  const gas = { maxFeePerGas: toHex(fees.maxFeePerGas), maxPriorityFeePerGas: toHex(fees.maxPriorityFeePerGas), gas: toHex(200_000) }
  for (let i = 0; i < 5; i++) {
    await call('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [transfer(label('sim-r'))] }] }, 'latest'])
    await call('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: Array.from({ length: 10 }, (_, k) => transfer(label(`sim-r-${k}`))) }] }, 'latest'])
    await call('eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls: [{ from: sender, to: bob.address, value: toHex(12_345n), ...gas }, { ...transfer(bob.address), ...gas }] }], traceTransfers: true, validation: true }, 'latest'])
  }
  return id
}

/**
 * The inputs of the differential suite, run against one in-process devnet,
 * and what came out of them as a JSON transcript: for every block its header
 * (state, receipts and transactions roots, bloom, gas), for every transaction
 * the answer to its submission, its receipt (status, gas, logs) and its
 * struct-logger trace (debug_traceTransaction), and the answers to eth_call,
 * eth_estimateGas and eth_simulateV1 (whole simulated blocks: hashes, roots,
 * call results, logs). The same seed gives the same inputs; the transcript
 * depends only on what the engine computed, so two engines that compute the
 * same chain give identical transcripts.
 *
 * Inputs:
 * - random programs (program.ts) deployed by transactions, then random
 *   transactions of every type (legacy, EIP-2930 with access lists,
 *   EIP-1559, EIP-4844 with versioned hashes, EIP-7702 with delegations to
 *   the programs, contract creations) with random call data, value and gas
 *   (some too little), sealed a few at a time, and random calls and
 *   two-block simulations (overrides, validation, traceTransfers);
 * - the payment token's flows: transfer, EIP-3009 transfer/receive/cancel
 *   with both signature forms (v, r, s and bytes), EIP-2612 permit in both
 *   forms then transferFrom, an ERC-1271 smart wallet (contracts/test/
 *   SmartWallet.sol) paying by authorization, pause and blacklist, and the
 *   failures each guards (replayed, expired, cancelled, paused, blacklisted),
 *   and a validated, traced simulation of token transfers;
 * - gas edges (gasEdges.ts): memory opcodes at offsets around 2^32 and
 *   2^256, every gas limit around a call's cost, GAS and 63/64 forwarding,
 *   frames given more than 2^53 gas.
 */
import { createHash } from 'node:crypto'
import {
  type Hex,
  bytesToHex,
  concatHex,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  numberToHex,
  parseSignature,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { paymentTokenAbi } from '../../../src/artifacts/paymentToken.js'
import { smartWalletAbi, smartWalletBytecode } from '../../../src/artifacts/smartWallet.js'
import { type Devnet, createDevnet } from '../../../src/index.js'
import { seededRandom } from '../../evm/generators.js'
import type { LooseRpc } from '../../utils.js'
import { gasEdgesPhase } from './gasEdges.js'
import { type World, deployCode, randomProgram } from './program.js'

/** DIFF_FULL_TRACES=1 keeps every step of every trace in the transcript (large); otherwise a short hash per step. */
const fullTraces = process.env.DIFF_FULL_TRACES === '1'

type StructLog = { gas: number; failed: boolean; returnValue: string; structLogs: unknown[] }

/**
 * A struct-logger trace with each step (pc, op, gas, cost, depth, stack, storage, error) as an 8-digit hash:
 * a transcript of every step of every transaction would be megabytes per case. Two traces differ exactly when
 * a step's hash does, and the position of the first different hash is the step to look at (DIFF_FULL_TRACES=1).
 */
function compactTrace(trace: StructLog) {
  return {
    gas: trace.gas,
    failed: trace.failed,
    returnValue: trace.returnValue,
    steps: trace.structLogs.length,
    stepHashes: trace.structLogs.map((step) => createHash('sha256').update(JSON.stringify(step)).digest('hex').slice(0, 8)).join(''),
  }
}

export type Entry = { label: string; [key: string]: unknown }
export type Transcript = { seed: number; cases: number; engine: string; hardfork: string; entries: Entry[] }

/** The fork a seed runs on: the default (Osaka), Prague and Cancun in turn, so each fork's fast paths and guards are compared. */
export const hardforkOf = (seed: number) => (['osaka', 'prague', 'cancun'] as const)[seed % 3]!

const gwei = 1_000_000_000n
const programCount = 5

type Account = ReturnType<typeof privateKeyToAccount>

export async function runScenario(seed: number, cases: number, engine: string): Promise<Transcript> {
  const hardfork = hardforkOf(seed)
  const devnet = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true, accounts: 20, hardfork })
  try {
    const entries: Entry[] = []
    const run = new Run(devnet, entries)
    await run.randomPhase(seed, cases)
    await run.tokenPhase()
    await run.tracePhase()
    await run.requestsPhase()
    await gasEdgesPhase((method, params) => run.rpc(method, params), entries, run.keys[5]!.address)
    return { seed, cases, engine, hardfork, entries }
  } finally {
    await devnet.close()
  }
}

class Run {
  readonly keys: Account[]
  readonly chainId: number
  private pending: { label: string; hash: Hex }[] = []

  constructor(readonly devnet: Devnet, readonly entries: Entry[]) {
    this.keys = devnet.accounts.map((a) => privateKeyToAccount(a.privateKey))
    this.chainId = Number(devnet.node.chainId)
  }

  rpc(method: string, params: unknown[]): Promise<any> {
    return this.devnet.request<LooseRpc>({ method, params })
  }

  /** An RPC answer or its error, as the transcript records either. */
  async answer(method: string, params: unknown[]): Promise<unknown> {
    try {
      return { result: await this.rpc(method, params) }
    } catch (e) {
      const error = e as { code?: number; message?: string; data?: unknown }
      return { error: { code: error.code, message: error.message, data: error.data } }
    }
  }

  async nonce(account: Account): Promise<number> {
    return Number(await this.rpc('eth_getTransactionCount', [account.address, 'pending']))
  }

  /** Signs and submits; the submission's answer goes in the transcript, the hash into the next block's list. */
  async send(label: string, from: Account, tx: Record<string, unknown>): Promise<void> {
    const signed = await from.signTransaction({ chainId: this.chainId, nonce: await this.nonce(from), ...tx } as never)
    const answer = (await this.answer('eth_sendRawTransaction', [signed])) as { result?: Hex }
    this.entries.push({ label: `${label}: submit`, answer })
    if (answer.result) this.pending.push({ label, hash: answer.result })
  }

  /** Seals what was sent; records the block, then each transaction's receipt and trace. */
  async seal(label: string): Promise<void> {
    const { number } = await this.devnet.seal()
    const block = await this.rpc('eth_getBlockByNumber', [numberToHex(number), false])
    this.entries.push({ label: `${label}: block ${number}`, block })
    for (const { label: txLabel, hash } of this.pending) {
      const receipt = await this.rpc('eth_getTransactionReceipt', [hash])
      this.entries.push({ label: `${txLabel}: receipt`, receipt })
      const trace = (await this.answer('debug_traceTransaction', [hash, {}])) as { result?: StructLog }
      this.entries.push({ label: `${txLabel}: trace`, trace: trace.result && !fullTraces ? compactTrace(trace.result) : trace })
    }
    this.pending = []
  }

  async randomPhase(seed: number, cases: number): Promise<void> {
    const rng = seededRandom(seed)
    const deployer = this.keys[1]!
    const first = await this.nonce(deployer)
    const contracts = Array.from({ length: programCount }, (_, i) => getContractAddress({ from: deployer.address, nonce: BigInt(first + i) }))
    const fork = this.devnet.config.hardfork
    // Prague adds the BLS precompiles (0x0b-0x11), Osaka P256VERIFY (0x100); earlier addresses are empty accounts.
    const precompiles = [...Array.from({ length: 17 }, (_, i) => i + 1), 0x100]
    const delegations = fork !== 'cancun'
    const world: World = { contracts, eoa: this.keys[19]!.address, precompiles }
    for (let i = 0; i < programCount; i++) {
      const runtime = randomProgram(rng, world, 6 + rng.int(14))
      await this.send(`program ${i}`, deployer, {
        type: 'eip1559', to: null, data: bytesToHex(deployCode(runtime, rng)), gas: 3_000_000n,
        maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: gwei, value: 10_000n,
      })
    }
    await this.seal('programs')

    const delegated: Hex[] = []
    for (let c = 0; c < cases; c++) {
      const label = `case ${c} (seed ${seed})`
      const from = this.keys[2 + rng.int(8)]!
      const targets = [...contracts, ...delegated]
      const to = targets[rng.int(targets.length)]!
      const data = bytesToHex(rng.bytes(rng.int(5) === 0 ? 0 : rng.int(100)))
      const gas = rng.int(10) === 0 ? 30_000n + BigInt(rng.int(40_000)) : 100_000n + BigInt(rng.int(1_400_000))
      const value = rng.int(3) === 0 ? BigInt(rng.int(1_000_000)) : 0n
      const fees = { maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: BigInt(rng.int(3)) * gwei }
      // Each kind once first (every type is covered however few the cases), then at random.
      let kind = c < 7 ? c : rng.int(7)
      if (kind === 3 && !delegations) kind = 5
      switch (kind) {
        case 0:
          await this.send(label, from, { type: 'legacy', to, data, gas, value, gasPrice: 50n * gwei })
          break
        case 1: {
          const accessList = Array.from({ length: rng.int(3) }, () => ({
            address: targets[rng.int(targets.length)]!,
            storageKeys: Array.from({ length: rng.int(3) }, () => numberToHex(rng.int(24), { size: 32 })),
          }))
          await this.send(label, from, { type: 'eip2930', to, data, gas, value, gasPrice: 50n * gwei, accessList })
          break
        }
        case 2:
          await this.send(label, from, {
            type: 'eip4844', to, data, gas, value, ...fees, maxFeePerBlobGas: 10n * gwei,
            blobVersionedHashes: Array.from({ length: 1 + rng.int(2) }, () => `0x01${bytesToHex(rng.bytes(31)).slice(2)}` as Hex),
          })
          break
        case 3: {
          // EIP-7702: an account delegates to a program; calls to it run the program from then on.
          const authority = this.keys[10 + rng.int(8)]!
          const same = authority.address === from.address
          const authorization = await authority.signAuthorization({
            chainId: this.chainId, address: contracts[rng.int(contracts.length)]!, nonce: (await this.nonce(authority)) + (same ? 1 : 0),
          })
          if (!delegated.includes(authority.address)) delegated.push(authority.address)
          await this.send(label, from, { type: 'eip7702', to, data, gas: gas + 50_000n, value, ...fees, authorizationList: [authorization] })
          break
        }
        case 4: {
          const runtime = randomProgram(rng, world, 3 + rng.int(8))
          const init = rng.int(2) === 0 ? deployCode(runtime, rng) : runtime
          await this.send(label, from, { type: 'eip1559', to: null, data: bytesToHex(init), gas: gas + 100_000n, value, ...fees })
          break
        }
        default:
          await this.send(label, from, { type: 'eip1559', to, data, gas, value, ...fees })
      }
      const call = { from: from.address, to: targets[rng.int(targets.length)]!, data: bytesToHex(rng.bytes(rng.int(80))), gas: numberToHex(1_000_000) }
      this.entries.push({ label: `${label}: eth_call`, answer: await this.answer('eth_call', [call, 'latest']) })
      if (c % 4 === 0) this.entries.push({ label: `${label}: eth_estimateGas`, answer: await this.answer('eth_estimateGas', [call, 'latest']) })
      if (c % 4 === 1) this.entries.push({ label: `${label}: eth_simulateV1`, answer: await this.answer('eth_simulateV1', [this.randomSimulation(rng, targets, c), 'latest']) })
      if (c % 4 === 3 || c === cases - 1) await this.seal(`cases to ${c}`)
    }
  }

  /**
   * An eth_simulateV1 payload of random calls to the programs over two blocks (the second sees the first's state),
   * with a balance and a storage override, alternately with validation (fees and nonces checked, a real base fee)
   * and with traceTransfers (synthetic ERC-7528 logs for every value move).
   */
  randomSimulation(rng: ReturnType<typeof seededRandom>, targets: Hex[], c: number) {
    const validation = c % 8 === 1
    const sender = this.keys[2 + rng.int(8)]!.address
    const call = () => ({
      from: sender,
      to: targets[rng.int(targets.length)]!,
      data: bytesToHex(rng.bytes(rng.int(80))),
      gas: numberToHex(200_000 + rng.int(800_000)),
      ...(rng.int(3) === 0 ? { value: numberToHex(rng.int(1_000_000)) } : {}),
      ...(validation ? { maxFeePerGas: numberToHex(50n * gwei), maxPriorityFeePerGas: numberToHex(gwei) } : {}),
    })
    const slot = numberToHex(rng.int(24), { size: 32 })
    return {
      blockStateCalls: [
        {
          stateOverrides: {
            [sender]: { balance: numberToHex(10n ** 20n) },
            [targets[rng.int(targets.length)]!]: { stateDiff: { [slot]: numberToHex(rng.int(1_000_000), { size: 32 }) } },
          },
          calls: Array.from({ length: 1 + rng.int(3) }, call),
        },
        { calls: Array.from({ length: 1 + rng.int(2) }, call) },
      ],
      validation,
      traceTransfers: c % 8 === 5,
      returnFullTransactions: c % 8 === 5,
    }
  }

  /**
   * traceTransfers where the order matters: a contract (code by override) logs, pays a child that logs, logs again
   * and self-destructs to a third address; a second one pays a child that logs and reverts. geth's answer
   * interleaves the transfer logs with the contract's and drops the reverted child's (devnet's engine hears
   * LOG and SELFDESTRUCT from its opcode observer, stock from step events).
   */
  async tracePhase(): Promise<void> {
    const [a, b, c, a2, b2] = ['a1', 'b1', 'c1', 'a2', 'b2'].map((n) => `0x${n.repeat(20)}` as Hex) as [Hex, Hex, Hex, Hex, Hex]
    const log0 = '60006000a0'
    const pay = (to: Hex, value: number) => `6000600060006000${(0x6000 + value).toString(16)}73${to.slice(2)}5af150`
    const sender = this.keys[3]!.address
    const answer = await this.answer('eth_simulateV1', [{
      blockStateCalls: [{
        stateOverrides: {
          [a]: { balance: toHex(1_000n), code: `0x${log0}${pay(b, 5)}600160006000a173${c.slice(2)}ff` },
          [b]: { code: `0x${log0}00` },
          [a2]: { balance: toHex(1_000n), code: `0x${pay(b2, 9)}${log0}00` },
          [b2]: { code: `0x${log0}60006000fd` },
        },
        calls: [{ from: sender, to: a, value: toHex(7n) }, { from: sender, to: a2, value: toHex(3n) }],
      }],
      traceTransfers: true,
    }, 'latest'])
    this.entries.push({ label: 'trace: eth_simulateV1 transfers, logs, selfdestruct', answer })
  }

  /**
   * Simulated blocks whose EIP-7685 requests are not empty, where devnet's engine seals through BlockBuilder.build
   * again (src/evm/builderSeal.ts): a withdrawal and a consolidation request queued in one block and dequeued at
   * its end, an idle block after it, and a deposit log (code by override at the deposit contract) of the layout
   * EIP-6110 parses. Before Prague the queues are empty addresses and the log is an ordinary one.
   */
  async requestsPhase(): Promise<void> {
    const sender = this.keys[4]!.address
    const pubkey = `0x${'ab'.repeat(48)}` as Hex
    const depositTopic = '0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5'
    const depositContract = '0x00000000219ab540356cbb839cbe05303d7705fa'
    const deposit = encodeAbiParameters(
      ['bytes', 'bytes', 'bytes', 'bytes', 'bytes'].map((type) => ({ type })),
      [pubkey, `0x${'01'.repeat(32)}`, '0x0040597307000000', `0x${'cd'.repeat(96)}`, '0x0000000000000000'],
    )
    // CALLDATACOPY(0, 0, CALLDATASIZE); LOG1(0, CALLDATASIZE, depositTopic)
    const logger = `0x3660006000377f${depositTopic.slice(2)}366000a100` as Hex
    const answer = await this.answer('eth_simulateV1', [{
      blockStateCalls: [
        {
          stateOverrides: { [sender]: { balance: toHex(10n ** 20n) }, [depositContract]: { code: logger } },
          calls: [
            { from: sender, to: '0x00000961ef480eb55e80d19ad83579a64c007002', value: toHex(1n), data: concatHex([pubkey, '0x0000000000000001']) },
            { from: sender, to: '0x0000bbddc7ce488642fb579f8b00f3a590007251', value: toHex(1n), data: concatHex([pubkey, `0x${'ef'.repeat(48)}`]) },
          ],
        },
        { calls: [] },
        { calls: [{ from: sender, to: depositContract, data: deposit }] },
      ],
    }, 'latest'])
    this.entries.push({ label: 'requests: eth_simulateV1 queued requests and a deposit log', answer })
    // A queue count given by an override (devnet reads untouched queues from the view, src/evm/idleRequestQueues.ts):
    // the first block's end dequeues and moves the excess, which the second block's fee query (empty calldata) sees.
    const withdrawalQueue = '0x00000961ef480eb55e80d19ad83579a64c007002'
    const overridden = await this.answer('eth_simulateV1', [{
      blockStateCalls: [
        { stateOverrides: { [withdrawalQueue]: { stateDiff: { [toHex(1n, { size: 32 })]: toHex(100n, { size: 32 }) } } }, calls: [] },
        { calls: [{ from: sender, to: withdrawalQueue }] },
      ],
    }, 'latest'])
    this.entries.push({ label: 'requests: eth_simulateV1 queue count by override', answer: overridden })
  }

  async tokenPhase(): Promise<void> {
    const token = this.devnet.token.address
    const [admin, alice, bob, charlie, david, walletOwner] = [0, 11, 12, 13, 14, 15].map((i) => this.keys[i]!) as [Account, Account, Account, Account, Account, Account]
    const domain = { name: this.devnet.config.token.name, version: '2', chainId: this.chainId, verifyingContract: token }
    const fees = { type: 'eip1559', maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: gwei, gas: 300_000n }
    const call = (label: string, from: Account, functionName: string, args: unknown[]) =>
      this.send(label, from, { ...fees, to: token, data: encodeFunctionData({ abi: paymentTokenAbi, functionName, args } as never) })
    const nonceOf = (n: number) => toHex(n, { size: 32 })
    const authorize = (signer: Account, primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization', message: Record<string, unknown>) =>
      signer.signTypedData({
        domain,
        primaryType,
        types: {
          [primaryType]: [
            { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
          ],
        },
        message,
      } as never)
    const split = (signature: Hex) => {
      const { r, s, v, yParity } = parseSignature(signature)
      return [Number(v ?? BigInt(yParity + 27)), r, s]
    }
    const far = 10n ** 12n

    await call('token: transfer', admin, 'transfer', [alice.address, 5_000_000n])
    // EIP-3009, v/r/s form and bytes form; a replay of the first fails.
    const t1 = { from: alice.address, to: bob.address, value: 1_000n, validAfter: 0n, validBefore: far, nonce: nonceOf(1) }
    const s1 = await authorize(alice, 'TransferWithAuthorization', t1)
    await call('token: 3009 transfer (v,r,s)', charlie, 'transferWithAuthorization', [t1.from, t1.to, t1.value, t1.validAfter, t1.validBefore, t1.nonce, ...split(s1)])
    const t2 = { ...t1, value: 2_000n, nonce: nonceOf(2) }
    await call('token: 3009 transfer (bytes)', charlie, 'transferWithAuthorization', [t2.from, t2.to, t2.value, t2.validAfter, t2.validBefore, t2.nonce, await authorize(alice, 'TransferWithAuthorization', t2)])
    await this.seal('token 3009')
    await call('token: 3009 replayed', charlie, 'transferWithAuthorization', [t1.from, t1.to, t1.value, t1.validAfter, t1.validBefore, t1.nonce, ...split(s1)])
    const r1 = { from: alice.address, to: bob.address, value: 3_000n, validAfter: 0n, validBefore: far, nonce: nonceOf(3) }
    await call('token: 3009 receive (v,r,s)', bob, 'receiveWithAuthorization', [r1.from, r1.to, r1.value, r1.validAfter, r1.validBefore, r1.nonce, ...split(await authorize(alice, 'ReceiveWithAuthorization', r1))])
    const r2 = { ...r1, nonce: nonceOf(4) }
    await call('token: 3009 receive by another', charlie, 'receiveWithAuthorization', [r2.from, r2.to, r2.value, r2.validAfter, r2.validBefore, r2.nonce, await authorize(alice, 'ReceiveWithAuthorization', r2)])
    const expired = { ...t1, nonce: nonceOf(5), validBefore: 1n }
    await call('token: 3009 expired', charlie, 'transferWithAuthorization', [expired.from, expired.to, expired.value, expired.validAfter, expired.validBefore, expired.nonce, await authorize(alice, 'TransferWithAuthorization', expired)])
    // Cancel (bytes form), then the cancelled authorization fails.
    const cancelled = { ...t1, nonce: nonceOf(6) }
    const cancel = await alice.signTypedData({
      domain, primaryType: 'CancelAuthorization',
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      message: { authorizer: alice.address, nonce: cancelled.nonce },
    })
    await call('token: 3009 cancel (bytes)', david, 'cancelAuthorization', [alice.address, cancelled.nonce, cancel])
    await this.seal('token 3009 failures')
    await call('token: 3009 cancelled', charlie, 'transferWithAuthorization', [cancelled.from, cancelled.to, cancelled.value, cancelled.validAfter, cancelled.validBefore, cancelled.nonce, await authorize(alice, 'TransferWithAuthorization', cancelled)])

    // EIP-2612 permit, both forms, then transferFrom by the spender.
    const permit = async (owner: Account, spender: Hex, value: bigint, nonce: bigint) =>
      owner.signTypedData({
        domain, primaryType: 'Permit',
        types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
        message: { owner: owner.address, spender, value, nonce, deadline: far },
      })
    await call('token: 2612 permit (v,r,s)', david, 'permit', [alice.address, charlie.address, 7_000n, far, ...split(await permit(alice, charlie.address, 7_000n, 0n))])
    await this.seal('token permit')
    await call('token: 2612 transferFrom', charlie, 'transferFrom', [alice.address, david.address, 4_000n])
    await call('token: 2612 permit (bytes)', david, 'permit', [alice.address, bob.address, 1_000n, far, await permit(alice, bob.address, 1_000n, 1n)])
    await call('token: 2612 permit replayed', david, 'permit', [alice.address, bob.address, 1_000n, far, await permit(alice, bob.address, 1_000n, 1n)])
    await call('token: transferFrom above allowance', charlie, 'transferFrom', [alice.address, david.address, 10_000n])
    await this.seal('token transferFrom')

    // ERC-1271: a smart wallet pays by authorization, its owner's signature checked by the wallet.
    const walletAddress = getContractAddress({ from: walletOwner.address, nonce: BigInt(await this.nonce(walletOwner)) })
    await this.send('token: deploy SmartWallet', walletOwner, { ...fees, gas: 1_000_000n, to: null, data: encodeDeployData({ abi: smartWalletAbi, bytecode: smartWalletBytecode, args: [walletOwner.address] }) })
    await call('token: fund wallet', admin, 'transfer', [walletAddress, 50_000n])
    await this.seal('token wallet')
    const w1 = { from: walletAddress, to: bob.address, value: 9_000n, validAfter: 0n, validBefore: far, nonce: nonceOf(7) }
    await call('token: 1271 transfer', charlie, 'transferWithAuthorization', [w1.from, w1.to, w1.value, w1.validAfter, w1.validBefore, w1.nonce, await authorize(walletOwner, 'TransferWithAuthorization', w1)])
    const w2 = { ...w1, nonce: nonceOf(8) }
    await call('token: 1271 wrong signer', charlie, 'transferWithAuthorization', [w2.from, w2.to, w2.value, w2.validAfter, w2.validBefore, w2.nonce, await authorize(david, 'TransferWithAuthorization', w2)])
    await this.seal('token 1271')

    // Pause, blacklist: transfers fail while in force and pass after.
    await call('token: pause', admin, 'pause', [])
    await this.seal('token pause')
    await call('token: transfer while paused', alice, 'transfer', [bob.address, 1n])
    await call('token: unpause', admin, 'unpause', [])
    await this.seal('token unpause')
    await call('token: blacklist', admin, 'blacklist', [bob.address])
    await this.seal('token blacklist')
    await call('token: transfer from blacklisted', bob, 'transfer', [alice.address, 1n])
    await call('token: transfer to blacklisted', alice, 'transfer', [bob.address, 1n])
    await call('token: unblacklist', admin, 'unBlacklist', [bob.address])
    await this.seal('token unblacklist')
    await call('token: transfer after', bob, 'transfer', [alice.address, 1n])
    await this.seal('token end')
    // eth_simulateV1 over the token: transfers in two blocks, validated and traced, one of them reverting.
    const transfer = (from: Account, to: Account, value: bigint, nonce: number) => ({
      from: from.address, to: token, nonce: toHex(nonce), maxFeePerGas: toHex(50n * gwei), maxPriorityFeePerGas: toHex(gwei),
      data: encodeFunctionData({ abi: paymentTokenAbi, functionName: 'transfer', args: [to.address, value] }),
    })
    const [aliceNonce, bobNonce] = [await this.nonce(alice), await this.nonce(bob)]
    this.entries.push({
      label: 'token: eth_simulateV1',
      answer: await this.answer('eth_simulateV1', [{
        blockStateCalls: [
          { calls: [transfer(alice, bob, 10n, aliceNonce), transfer(bob, charlie, 5n, bobNonce), { from: alice.address, to: bob.address, value: toHex(7n), nonce: toHex(aliceNonce + 1), maxFeePerGas: toHex(50n * gwei) }] },
          { calls: [transfer(alice, david, 10n ** 30n, aliceNonce + 2), transfer(charlie, alice, 1n, await this.nonce(charlie))] },
        ],
        validation: true,
        traceTransfers: true,
      }, 'latest']),
    })
    for (const who of [alice, bob, charlie, david]) {
      const data = encodeFunctionData({ abi: paymentTokenAbi, functionName: 'balanceOf', args: [who.address] })
      this.entries.push({ label: `token: balanceOf ${who.address}`, answer: await this.answer('eth_call', [{ to: token, data }, 'latest']) })
    }
  }
}

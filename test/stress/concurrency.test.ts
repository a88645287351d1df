import { Agent, request as httpRequest } from 'node:http'
import { createRequire } from 'node:module'
import { type Hex, encodeFunctionData, erc20Abi, hexToBytes, keccak256, serializeTransaction, toHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { type StartedDevnet, startDevnet } from '../../src/index.js'
import type { ExecutedTx } from '../../src/evm/types.js'

/**
 * Many senders at once over HTTP (issue 15): 64 accounts × 100 signed
 * transfers, all in flight together, in interval mining (short block time and
 * pre-confirmation interval) and in auto mining. Checked: every accepted hash
 * has exactly one receipt; each sender's nonces 0..99 are mined in order
 * without gap or duplicate; eth_getTransactionCount(pending), polled during
 * the run, never goes backwards; every sealed block is the pre-confirmed block
 * it came from (the last newFlashblocks message on its parent over WebSocket,
 * and the node's own pre-confirmation with its receipts). Alongside, ten dev
 * accounts send 20 token transfers each through eth_sendTransaction (the node
 * picks the nonces; the transfers put logs in the compared receipts).
 */

const senderCount = 64
const perSender = 100
/** Alongside: dev accounts sending token transfers the node fills and signs (logs in every block, node-picked nonces). */
const tokenSenders = 10
const perTokenSender = 20
const chainId = 31337
// 1,000 gwei: the base fee (1 gwei at genesis) passes it only after ~59 full blocks (~12 s of 200 ms blocks), well
// after the last transaction is admitted even on a loaded machine (admission refuses a fee cap below the current
// base fee, as Anvil does; at 10 gwei and 100 ms blocks, 21 full blocks, a slow run's last admissions were refused),
// yet before the ~75 blocks that drain the load, so transactions accepted earlier still see the base fee climb past
// their cap and must wait.
const maxFeePerGas = 10n ** 12n
const maxPriorityFeePerGas = 10n ** 9n
const sink = '0x00000000000000000000000000000000000c0ffe' as const

// The native binding devnet itself uses for recovery: signing 6,400 transactions with it takes a fraction of viem's time.
const secp = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number }
}

type Signed = { raw: Hex; hash: Hex; from: Hex; nonce: number }

function signTransfer(key: Hex, nonce: number, fees = { maxFeePerGas, maxPriorityFeePerGas }, value = 1n): Signed {
  const tx = { type: 'eip1559', chainId, nonce, to: sink, value, gas: 21_000n, ...fees } as const
  const { signature, recid } = secp.ecdsaSign(hexToBytes(keccak256(serializeTransaction(tx))), hexToBytes(key))
  const raw = serializeTransaction(tx, {
    r: toHex(signature.slice(0, 32)),
    s: toHex(signature.slice(32)),
    yParity: recid,
  })
  return { raw, hash: keccak256(raw), from: privateKeyToAddress(key).toLowerCase() as Hex, nonce }
}

const keys = Array.from({ length: senderCount }, (_, i) => keccak256(toHex(`devnet concurrency sender ${i}`)))
const senders = keys.map((key) => privateKeyToAddress(key).toLowerCase() as Hex)
// Signed once: both runs start from a fresh genesis, so the same transactions are valid on each.
let signed: Signed[][]

/** Raw JSON-RPC over keep-alive HTTP: many requests in flight on up to 128 sockets. */
function createRpc(url: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 128 })
  const { hostname, port } = new URL(url)
  let id = 0
  const post = (payload: unknown) =>
    new Promise<any>((resolve, reject) => {
      const body = JSON.stringify(payload)
      const req = httpRequest(
        { agent, hostname, port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
            } catch (error) {
              reject(error)
            }
          })
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  const call = async (method: string, params: unknown[] = []) => {
    const reply = await post({ jsonrpc: '2.0', id: ++id, method, params })
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code })
    return reply.result
  }
  /** One batch per chunk of 100 calls; results in call order, errors as `{ error }`. */
  const batch = async (calls: [string, unknown[]][]) => {
    const out: any[] = []
    for (let i = 0; i < calls.length; i += 100) {
      const chunk = calls.slice(i, i + 100).map(([method, params], j) => ({ jsonrpc: '2.0', id: i + j, method, params }))
      const replies = (await post(chunk)) as { id: number; result?: unknown; error?: unknown }[]
      const byId = new Map(replies.map((r) => [r.id, r]))
      for (const item of chunk) {
        const r = byId.get(item.id)!
        out.push(r.error ? { error: r.error } : r.result)
      }
    }
    return out
  }
  return { post, call, batch, close: () => agent.destroy() }
}

type FlashblockMessage = { parentHash: Hex; number: Hex; transactions: { hash: Hex }[] }
type HeadMessage = { parentHash: Hex; number: Hex; hash: Hex }

/** Subscribes to newFlashblocks and newHeads; keeps every message in arrival order. */
async function watch(wsUrl: string) {
  const ws = new WebSocket(wsUrl)
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const subs = new Map<string, 'flash' | 'head'>()
  const messages: ({ kind: 'flash'; value: FlashblockMessage } | { kind: 'head'; value: HeadMessage })[] = []
  const pending = new Map<number, (id: string) => void>()
  let bytes = 0
  let closed = false
  ws.on('close', () => (closed = true))
  ws.on('message', (data) => {
    bytes += (data as Buffer).length
    const msg = JSON.parse(String(data))
    if (msg.method === 'eth_subscription') {
      const kind = subs.get(msg.params.subscription)
      if (kind) messages.push({ kind, value: msg.params.result } as never)
    } else if (pending.has(msg.id)) pending.get(msg.id)!(msg.result)
  })
  const subscribe = (id: number, kind: 'flash' | 'head', params: unknown[]) =>
    new Promise<void>((resolve) => {
      pending.set(id, (sub) => {
        subs.set(sub, kind)
        resolve()
      })
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }))
    })
  await subscribe(1, 'flash', ['newFlashblocks'])
  await subscribe(2, 'head', ['newHeads'])
  /** Resolves once the newHeads message of block `number` has arrived (frames trail the HTTP answers). */
  const reached = (number: bigint) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (messages.some((m) => m.kind === 'head' && BigInt(m.value.number) >= number)) {
          ws.off('message', check)
          resolve()
        } else if (closed) reject(new Error(`subscription socket closed by the node after ${bytes} bytes`))
      }
      ws.on('message', check)
      ws.on('close', check)
      check()
    })
  return { messages, reached, bytes: () => bytes, close: () => ws.close() }
}

/** The node's own view of I3: each sealed block against the last pre-confirmation published on its parent. */
function watchNode(devnet: StartedDevnet) {
  const lastOnParent = new Map<string, { txs: readonly ExecutedTx[]; root: Uint8Array }>()
  const mismatches: string[] = []
  const sealed = new Set<bigint>()
  const receiptOf = (t: ExecutedTx) => ({
    hash: t.hash,
    status: t.status,
    gasUsed: t.gasUsed,
    cumulativeGasUsed: t.cumulativeGasUsed,
    effectiveGasPrice: t.effectiveGasPrice,
    logs: t.logs,
  })
  const offPreconf = devnet.node.events.on('preconf', (s) => lastOnParent.set(s.parentHash, { txs: s.txs, root: s.root }))
  const offHead = devnet.node.events.on('newHead', (block) => {
    sealed.add(block.number)
    const parentHash = toHex(block.block.header.parentHash)
    const promised = lastOnParent.get(parentHash)
    const sealedTxs = block.txs.map(receiptOf)
    const promisedTxs = (promised?.txs ?? []).map(receiptOf)
    try {
      expect(sealedTxs).toEqual(promisedTxs)
      if (promised) expect(toHex(block.stateRoot)).toBe(toHex(promised.root))
    } catch (error) {
      mismatches.push(`block ${block.number}: ${(error as Error).message.slice(0, 300)}`)
    }
    lastOnParent.delete(parentHash)
  })
  return {
    mismatches,
    sealed: (from: bigint, upTo: bigint) => [...sealed].filter((n) => n >= from && n <= upTo).length,
    close() {
      offPreconf()
      offHead()
    },
  }
}

/**
 * Polls eth_getTransactionCount(pending) for every sender until stopped and
 * records any step backwards.
 */
function pollPendingNonces(url: string) {
  // Its own sockets: the reads race the sends instead of queueing behind them.
  const rpc = createRpc(url)
  const backwards: string[] = []
  let polls = 0
  let running = true
  // Each reader is one client polling in sequence: what it sees must never go back.
  const loop = async () => {
    const last = new Map<Hex, bigint>()
    while (running) {
      const counts = await rpc.batch(senders.map((s) => ['eth_getTransactionCount', [s, 'pending']]))
      polls++
      counts.forEach((count, i) => {
        const value = BigInt(count)
        const before = last.get(senders[i]!) ?? 0n
        if (value < before) backwards.push(`${senders[i]}: ${before} -> ${value}`)
        last.set(senders[i]!, value)
      })
    }
  }
  // Four readers in flight at once.
  const done = Promise.all([loop(), loop(), loop(), loop()])
  return {
    backwards,
    polls: () => polls,
    async stop() {
      running = false
      await done
      rpc.close()
    },
  }
}

async function runLoad(devnet: StartedDevnet) {
  const rpc = createRpc(devnet.url)
  const flash = await watch(devnet.wsUrl)
  const node = watchNode(devnet)
  try {
    // Interval mining seals from the start: the checks cover the blocks sealed after the watchers were in place.
    const firstBlock = BigInt(await rpc.call('eth_blockNumber')) + 1n
    await rpc.batch(senders.map((s) => ['anvil_setBalance', [s, toHex(10n ** 21n)]]))
    const poller = pollPendingNonces(devnet.url)
    const started = performance.now()
    // Nonce-major order: each sender's transactions leave roughly in order, but 128 sockets reorder them on the way.
    const sends: Promise<{ signed: Signed; hash?: Hex; error?: string }>[] = []
    for (let nonce = 0; nonce < perSender; nonce++)
      for (let s = 0; s < senderCount; s++) {
        const tx = signed[s]![nonce]!
        sends.push(
          rpc.call('eth_sendRawTransaction', [tx.raw]).then(
            (hash: Hex) => ({ signed: tx, hash }),
            (error: Error) => ({ signed: tx, error: error.message }),
          ),
        )
      }
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [sink, 1n] })
    const tokenSends = devnet.accounts.slice(0, tokenSenders).flatMap((a) =>
      Array.from({ length: perTokenSender }, () =>
        rpc.call('eth_sendTransaction', [{ from: a.address, to: devnet.token.address, data: transfer }]).then(
          (hash: Hex) => ({ hash, error: undefined }),
          (error: Error) => ({ hash: undefined, error: error.message }),
        ),
      ),
    )
    const results = await Promise.all(sends)
    const tokenResults = await Promise.all(tokenSends)
    const sendMs = performance.now() - started
    // Whatever the timers have not sealed yet, seal now (no waiting on the wall clock).
    for (let i = 0; i < 1000; i++) {
      const status = await rpc.call('devnet_status')
      if (status.pool === 0 && status.pending.transactionCount === 0) break
      await rpc.call('devnet_seal')
    }
    await poller.stop()
    const status = await rpc.call('devnet_status')
    const head = BigInt(status.head.number)

    // Every block's transactions, in chain order.
    const blocks = await rpc.batch(
      Array.from({ length: Number(head) }, (_, i) => ['eth_getBlockByNumber', [toHex(i + 1), false]] as [string, unknown[]]),
    )
    const seen = new Map<Hex, number>()
    const order = new Map<Hex, number[]>()
    const bySignedHash = new Map(signed.flat().map((t) => [t.hash, t]))
    for (const block of blocks)
      for (const hash of block.transactions as Hex[]) {
        seen.set(hash, (seen.get(hash) ?? 0) + 1)
        const t = bySignedHash.get(hash)
        if (t) order.set(t.from, [...(order.get(t.from) ?? []), t.nonce])
      }
    const accepted = results.filter((r) => r.hash !== undefined)
    const receipts = await rpc.batch(accepted.map((r) => ['eth_getTransactionReceipt', [r.hash]]))
    const tokenHashes = tokenResults.flatMap((r) => (r.hash ? [r.hash] : []))
    const tokenReceipts = await rpc.batch(tokenHashes.map((hash) => ['eth_getTransactionReceipt', [hash]]))
    const tokenTxs = await rpc.batch(tokenHashes.map((hash) => ['eth_getTransactionByHash', [hash]]))
    const tokenNonces = new Map<string, number[]>()
    for (const tx of tokenTxs) tokenNonces.set(tx.from, [...(tokenNonces.get(tx.from) ?? []), Number(BigInt(tx.nonce))])
    const latestNonces = await rpc.batch(senders.map((s) => ['eth_getTransactionCount', [s, 'latest']]))
    const pendingNonces = await rpc.batch(senders.map((s) => ['eth_getTransactionCount', [s, 'pending']]))
    await flash.reached(head)
    flash.close()

    // The WebSocket view of I3: the last flashblock on each parent holds the sealed block's transactions, in order.
    const lastFlash = new Map<Hex, Hex[]>()
    const flashMismatches: string[] = []
    for (const m of flash.messages) {
      if (m.kind === 'flash') lastFlash.set(m.value.parentHash, m.value.transactions.map((t) => t.hash))
      else {
        const block = blocks[Number(BigInt(m.value.number)) - 1]
        if (!block || block.hash !== m.value.hash) continue
        const promised = lastFlash.get(m.value.parentHash) ?? []
        if (JSON.stringify(promised) !== JSON.stringify(block.transactions))
          flashMismatches.push(`block ${BigInt(m.value.number)}: flashblock ${promised.length} txs, sealed ${block.transactions.length}`)
      }
    }

    return {
      sendMs,
      rejected: results.filter((r) => r.error !== undefined).map((r) => `${r.signed.from}/${r.signed.nonce}: ${r.error}`),
      accepted,
      receipts,
      tokenErrors: tokenResults.flatMap((r) => (r.error ? [r.error] : [])),
      tokenReceipts,
      tokenNonces: [...tokenNonces.values()].map((n) => n.sort((x, y) => x - y)),
      seen,
      order,
      blocks: blocks.length,
      // Timers may seal (empty) blocks after the head was read: count only those up to it.
      wsBytes: flash.bytes(),
      heads: flash.messages.filter((m) => m.kind === 'head' && BigInt(m.value.number) >= firstBlock && BigInt(m.value.number) <= head).length,
      watchedBlocks: Number(head - firstBlock + 1n),
      latestNonces,
      pendingNonces,
      backwards: poller.backwards,
      polls: poller.polls(),
      flashMismatches,
      nodeMismatches: node.mismatches,
      nodeSealed: node.sealed(firstBlock, head),
    }
  } finally {
    node.close()
    flash.close()
    rpc.close()
  }
}

function expectClean(run: Awaited<ReturnType<typeof runLoad>>) {
  expect(run.rejected).toEqual([])
  expect(run.accepted).toHaveLength(senderCount * perSender)
  // Exactly one receipt per accepted hash, each a success in a block that lists it once.
  const missing = run.accepted.filter((_, i) => !run.receipts[i] || run.receipts[i].error)
  expect(missing.map((r) => r.hash)).toEqual([])
  expect(run.receipts.filter((r) => r.status !== '0x1')).toEqual([])
  expect([...run.seen.values()].filter((n) => n !== 1)).toEqual([])
  expect(run.seen.size).toBe(senderCount * perSender + tokenSenders * perTokenSender)
  expect(run.tokenErrors).toEqual([])
  expect(run.tokenReceipts.filter((r) => r?.status !== '0x1' || r.logs.length !== 1)).toEqual([])
  expect(run.tokenNonces).toEqual(
    Array.from({ length: tokenSenders }, () => Array.from({ length: perTokenSender }, (_, i) => i)),
  )
  const expectedNonces = Array.from({ length: perSender }, (_, i) => i)
  for (const sender of senders) expect(run.order.get(sender), sender).toEqual(expectedNonces)
  expect(run.latestNonces.map(BigInt)).toEqual(senders.map(() => BigInt(perSender)))
  expect(run.pendingNonces.map(BigInt)).toEqual(senders.map(() => BigInt(perSender)))
  expect(run.backwards).toEqual([])
  expect(run.flashMismatches).toEqual([])
  expect(run.nodeMismatches).toEqual([])
  expect(run.heads).toBe(run.watchedBlocks)
  expect(run.nodeSealed).toBe(run.watchedBlocks)
}

describe('concurrent senders', () => {
  beforeAll(() => {
    signed = keys.map((key) => Array.from({ length: perSender }, (_, nonce) => signTransfer(key, nonce)))
  })

  test('behavior: 64 senders × 100 transfers at once, interval mining', async () => {
    const devnet = await startDevnet({
      mining: { type: 'interval', blockTime: 200, preconfInterval: 10 },
      // Congested: about 90 transfers fill a block, so blocks fill up, transactions wait for the next one and the
      // base fee climbs past the fee cap of transactions accepted earlier (they must wait, not be dropped).
      gasLimit: 2_000_000n,
      clock: 'virtual',
      quiet: true,
    })
    try {
      const run = await runLoad(devnet)
      console.log(
        `interval: ${run.accepted.length} raw + ${run.tokenReceipts.length} token txs in ${run.blocks} blocks, sent in ${Math.round(run.sendMs)} ms, ${run.polls} nonce polls, ${(run.wsBytes / 1e6).toFixed(1)} MB of flashblocks`,
      )
      expectClean(run)
      expect(run.polls).toBeGreaterThan(0)
    } finally {
      await devnet.close()
    }
  }, 180_000)

  test('behavior: 64 senders × 100 transfers at once, auto mining', async () => {
    const devnet = await startDevnet({ mining: 'auto', clock: 'virtual', quiet: true })
    try {
      const run = await runLoad(devnet)
      console.log(
        `auto: ${run.accepted.length} raw + ${run.tokenReceipts.length} token txs in ${run.blocks} blocks, sent in ${Math.round(run.sendMs)} ms, ${run.polls} nonce polls, ${(run.wsBytes / 1e6).toFixed(1)} MB of flashblocks`,
      )
      expectClean(run)
    } finally {
      await devnet.close()
    }
  }, 180_000)
})

describe('eth_sendTransaction: sends from one account in flight together', () => {
  // The node picks the nonce: without a per-sender lock all of them took the same one ("already known").
  test.each(['manual', 'auto'] as const)('behavior: consecutive nonces, all mined (%s mining)', async (mining) => {
    const devnet = await startDevnet({ mining, clock: 'virtual', quiet: true })
    const rpc = createRpc(devnet.url)
    try {
      const [a, b, to] = devnet.accounts.map((x) => x.address)
      const request = (from: string) => ['eth_sendTransaction', [{ from, to, value: '0x1' }]] as [string, unknown[]]
      // One batch from `a`, twenty parallel requests from `b`.
      const [batched, parallel] = await Promise.all([
        rpc.batch(Array.from({ length: 20 }, () => request(a!))),
        Promise.all(Array.from({ length: 20 }, () => rpc.call(...request(b!)).catch((error: Error) => ({ error: error.message })))),
      ])
      expect([...batched, ...parallel].filter((r) => typeof r !== 'string')).toEqual([])
      if (mining === 'manual') await rpc.call('devnet_seal')
      const txs = await rpc.batch([...batched, ...parallel].map((hash) => ['eth_getTransactionByHash', [hash]]))
      const nonces = (from: string) =>
        txs.filter((tx) => tx.from === from!.toLowerCase()).map((tx) => Number(BigInt(tx.nonce))).sort((x, y) => x - y)
      const expected = Array.from({ length: 20 }, (_, i) => i)
      expect(nonces(a!)).toEqual(expected)
      expect(nonces(b!)).toEqual(expected)
      expect(txs.every((tx) => tx.blockNumber !== null)).toBe(true)
      expect(devnet.node.sendsInFlight()).toBe(0)
    } finally {
      rpc.close()
      await devnet.close()
    }
  })
})

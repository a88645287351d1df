/**
 * The live page: a view of this devnet over its own WebSocket. It
 * subscribes to newHeads, newFlashblocks and logs, and reads what it shows
 * with plain JSON-RPC calls when those arrive; the node does nothing for the
 * page while no page is open.
 */
import { type RpcLog, abiString, num, revertReason } from './decode.js'
import { RpcError, connect } from './rpc.js'
import { type Mining, type RpcTx, createState, noteFlashblock, noteLog, noteReceipt, noteSealed } from './state.js'
import { h, renderTables, renderTimeline } from './view.js'

const state = createState()

let chain: Promise<unknown> = Promise.resolve()
/**
 * Runs chain updates one after another, in the order the node sent them: a
 * head whose block is still being fetched must not let the next
 * pre-confirmation (already on top of it) land first.
 */
const serial = (fn: () => Promise<unknown> | void) => {
  chain = chain.then(fn).catch((error) => console.error('devnet page:', error))
  return chain
}
const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T

let scheduled = false
/** Re-renders on the next frame, once however many updates arrived. */
const render = () => {
  if (scheduled) return
  scheduled = true
  requestAnimationFrame(() => {
    scheduled = false
    renderTimeline(state, performance.now())
    renderTables(state)
  })
}

const rpc = connect({
  onOpen: () => {
    const dot = byId('connection')
    dot.className = 'dot on'
    dot.textContent = 'live'
    void start()
  },
  onClose: () => {
    const dot = byId('connection')
    dot.className = 'dot off'
    dot.textContent = 'offline'
  },
})

type Receipt = { transactionHash: string; status: string; logs: RpcLog[]; blockNumber: string }

/** Receipts of transactions (pending ones included); a reverted one gets its reason from the call tracer. */
async function loadReceipts(hashes: string[]) {
  const receipts = (await rpc.batch(hashes.map((hash) => ['eth_getTransactionReceipt', [hash]]))) as (Receipt | null | Error)[]
  const reverted: string[] = []
  for (const receipt of receipts) {
    if (!receipt || receipt instanceof Error) continue
    const tx = noteReceipt(state, receipt)
    if (tx?.result === 'reverted' && tx.reason === undefined) reverted.push(tx.hash)
  }
  const traces = (await rpc.batch(reverted.map((hash) => ['debug_traceTransaction', [hash, { tracer: 'callTracer' }]]))) as (
    | { revertReason?: string; error?: string; output?: string }
    | Error
  )[]
  traces.forEach((trace, i) => {
    const tx = state.txs.get(reverted[i]!)
    if (!tx || trace instanceof Error) return
    tx.reason = trace.revertReason ?? revertReason(trace.output) ?? trace.error ?? ''
  })
  render()
}

let balancesTimer: ReturnType<typeof setTimeout> | undefined
/** ETH and token balances of every dev account at latest and pending, at most four times a second. */
function refreshBalances() {
  if (balancesTimer) return
  balancesTimer = setTimeout(async () => {
    balancesTimer = undefined
    const balanceOf = (address: string) => `0x70a08231${address.slice(2).padStart(64, '0')}`
    const calls: [string, unknown[]][] = state.accounts.flatMap((a) => [
      ['eth_getBalance', [a, 'latest']],
      ['eth_getBalance', [a, 'pending']],
      ['eth_call', [{ to: state.token.address, data: balanceOf(a) }, 'latest']],
      ['eth_call', [{ to: state.token.address, data: balanceOf(a) }, 'pending']],
    ])
    const results = await rpc.batch(calls)
    const big = (v: unknown) => (typeof v === 'string' && v !== '0x' ? BigInt(v) : 0n)
    state.accounts.forEach((a, i) => {
      const [ethLatest, ethPending, tokenLatest, tokenPending] = results.slice(i * 4, i * 4 + 4).map(big) as [bigint, bigint, bigint, bigint]
      state.balances.set(a, { ethLatest, ethPending, tokenLatest, tokenPending })
    })
    render()
  }, 250)
}

type RpcBlock = { number: string; hash: string; parentHash: string; gasUsed: string; transactions: RpcTx[] }

/** The last sealed blocks from the node, replacing what the page believed (after a reorg, a revert, a reconnect). */
async function resync() {
  const head = num(await rpc.request<string>('eth_blockNumber'))
  const from = Math.max(0, head - 7)
  const blocks = (await rpc.batch(
    Array.from({ length: head - from + 1 }, (_, i) => ['eth_getBlockByNumber', [`0x${(from + i).toString(16)}`, true]]),
  )) as RpcBlock[]
  const canonical = new Set(blocks.map((b) => b.hash))
  for (const b of state.blocks) if (!canonical.has(b.hash)) b.removed = true
  for (const tx of state.txs.values()) if (tx.sealed && !blocks.some((b) => b.transactions.some((t) => t.hash === tx.hash)) && tx.block >= from) tx.removed = true
  const pendingFlashblocks = state.pending
  for (const block of blocks) if (!state.blocks.some((b) => b.hash === block.hash)) noteSealed(state, block)
  state.head = { number: head, hash: blocks.at(-1)?.hash ?? '' }
  state.pending = pendingFlashblocks.number === head + 1 ? pendingFlashblocks : { ...state.pending, number: head + 1, flashblocks: [] }
  const pending = await rpc.request<RpcBlock>('eth_getBlockByNumber', ['pending', true])
  const added = noteFlashblock(state, pending)
  await loadReceipts([...blocks.flatMap((b) => b.transactions.map((t) => t.hash)), ...added])
  refreshBalances()
}

async function onHead(header: { number: string; hash: string; parentHash: string }) {
  // A head that does not follow the one the page knows: a reorg or a revert happened in between.
  if (state.head.hash && header.parentHash !== state.head.hash) return resync()
  const block = await rpc.request<RpcBlock>('eth_getBlockByHash', [header.hash, true])
  if (!block) return
  noteSealed(state, block)
  void loadReceipts(block.transactions.map((t) => t.hash))
  refreshBalances()
}

async function onFlashblock(block: RpcBlock) {
  const added = noteFlashblock(state, block)
  render()
  // Receipts load outside the queue: the next tick need not wait for them.
  if (added.length > 0) void loadReceipts(added)
  refreshBalances()
}

async function start() {
  const [status, accounts] = await Promise.all([
    rpc.request<{ mining: Mining; token: { address: string; symbol: string; decimals: number } }>('devnet_status'),
    rpc.request<string[]>('eth_accounts'),
  ])
  state.chainId = num(await rpc.request<string>('eth_chainId'))
  state.mining = status.mining
  state.token = status.token
  state.accounts = accounts.map((a) => a.toLowerCase())
  await rpc.subscribe('newHeads', (header) => void serial(() => onHead(header)))
  await rpc.subscribe('newFlashblocks', (block) => void serial(() => onFlashblock(block)))
  await rpc.subscribe('logs', (log: RpcLog) =>
    serial(() => {
      noteLog(state, log)
      render()
    }),
  )
  await serial(resync)
  // Drawn now, not on the next frame: `data-ready` promises a page that shows the chain.
  renderTimeline(state, performance.now())
  renderTables(state)
  document.body.dataset.ready = 'true'
}

/** Runs a control's JSON-RPC call and shows its answer (or its error) beside the buttons. */
function control(id: string, run: () => Promise<unknown>, after?: (result: unknown) => unknown) {
  byId(id).addEventListener('click', async () => {
    const out = byId('control-result')
    out.className = ''
    try {
      const result = await run()
      out.textContent = `${id}: ${JSON.stringify(result)}`
      await after?.(result)
    } catch (error) {
      out.className = 'error'
      out.textContent = `${id}: ${error instanceof RpcError ? `${error.code} ${error.message}` : String(error)}`
    }
    render()
  })
}

const intOf = (id: string) => Math.max(1, Number.parseInt(byId<HTMLInputElement>(id).value, 10) || 1)

control('preconfirm', () => rpc.request('devnet_preconfirm'))
control('seal', () => rpc.request('devnet_seal'))
control('mine', () => rpc.request('evm_mine', [{ blocks: intOf('mine-n') }]))
control(
  'snapshot',
  () => rpc.request<string>('evm_snapshot'),
  (id) => {
    state.snapshots.push(id as string)
  },
)
control(
  'revert',
  () => rpc.request('evm_revert', [byId<HTMLSelectElement>('snapshots').value]),
  async () => {
    const id = byId<HTMLSelectElement>('snapshots').value
    // evm_revert deletes that snapshot and every later one.
    state.snapshots = state.snapshots.filter((s) => BigInt(s) < BigInt(id))
    await serial(resync)
  },
)
control('increase-time', () => rpc.request('evm_increaseTime', [intOf('time-s')]))
control('reorg', () => rpc.request('devnet_reorg', [{ depth: intOf('reorg-depth') }]), () => serial(resync))

byId('check').addEventListener('click', async () => {
  const out = byId('check-result')
  let pasted: unknown
  try {
    pasted = JSON.parse(byId<HTMLTextAreaElement>('auth-input').value)
  } catch (error) {
    out.replaceChildren(h('p', { class: 'bad' }, `not JSON: ${(error as Error).message}`))
    return
  }
  try {
    const r = await rpc.request<{
      ok: boolean
      failures: { reason: string; message: string }[]
      skipped: string[]
      method: string
      timestamp: string
    }>('devnet_checkAuthorization', [pasted])
    out.replaceChildren(
      h('p', { class: r.ok ? 'good' : 'bad', 'data-ok': String(r.ok) }, r.ok ? `✓ would capture now with ${r.method}` : `✗ would not capture (${r.method})`),
      h('ul', null, ...r.failures.map((f) => h('li', { 'data-reason': f.reason }, h('b', null, f.reason), ': ', f.message))),
      h('p', { class: 'hint' }, `checked against the pending block at time ${num(r.timestamp)}${r.skipped.length ? `; skipped: ${r.skipped.join(', ')}` : ''}`),
    )
  } catch (error) {
    out.replaceChildren(h('p', { class: 'bad' }, error instanceof RpcError ? error.message : String(error)))
  }
})

/**
 * Fills the paste box with a real signed authorization, so the check can be
 * tried without writing code: dev account #1 signs (eth_signTypedData_v4, the
 * node holds its key) a ReceiveWithAuthorization of 1 token to #2, valid from a
 * minute before the pending block's time to 15 minutes after it.
 */
byId('sample').addEventListener('click', async () => {
  const [from, to] = [state.accounts[1], state.accounts[2]]
  if (!from || !to) return
  // Emptied first: a Check clicked while the sample is being signed must not check what the box held before.
  byId<HTMLTextAreaElement>('auth-input').value = ''
  byId('check-result').replaceChildren(h('p', { class: 'hint' }, 'signing a sample…'))
  const token = state.token.address
  const [name, version, pending] = (await rpc.batch([
    ['eth_call', [{ to: token, data: '0x06fdde03' }, 'latest']],
    ['eth_call', [{ to: token, data: '0x54fd4d50' }, 'latest']],
    ['eth_getBlockByNumber', ['pending', false]],
  ])) as [string, string, { timestamp: string }]
  const time = num(pending.timestamp)
  const nonce = `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('')}`
  const domain = { name: abiString(name) ?? '', version: abiString(version) ?? '', chainId: state.chainId, verifyingContract: token }
  const message = { from, to, value: `${10 ** state.token.decimals}`, validAfter: `${time - 60}`, validBefore: `${time + 900}`, nonce }
  const fields = ['from:address', 'to:address', 'value:uint256', 'validAfter:uint256', 'validBefore:uint256', 'nonce:bytes32']
  const typed = {
    domain,
    primaryType: 'ReceiveWithAuthorization',
    types: {
      EIP712Domain: ['name:string', 'version:string', 'chainId:uint256', 'verifyingContract:address'].map((f) => ({ name: f.split(':')[0], type: f.split(':')[1] })),
      ReceiveWithAuthorization: fields.map((f) => ({ name: f.split(':')[0], type: f.split(':')[1] })),
    },
    message,
  }
  try {
    const signature = await rpc.request<string>('eth_signTypedData_v4', [from, JSON.stringify(typed)])
    byId<HTMLTextAreaElement>('auth-input').value = JSON.stringify(
      { authorization: { primaryType: 'ReceiveWithAuthorization', domain, ...message }, signature },
      null,
      1,
    )
    byId('check-result').replaceChildren()
  } catch (error) {
    byId('check-result').replaceChildren(h('p', { class: 'bad' }, error instanceof RpcError ? error.message : String(error)))
  }
})

// The tick cursor moves with time under interval mining: the timeline is drawn again when it enters a new slot.
let slot = -1
const animate = () => {
  const m = state.mining
  if (m.type === 'interval') {
    const now = performance.now()
    const current = Math.floor((now - state.pending.startedAt) / m.preconfInterval)
    if (current !== slot) {
      slot = current
      renderTimeline(state, now)
    }
  }
  requestAnimationFrame(animate)
}
requestAnimationFrame(animate)

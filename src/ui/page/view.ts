import { type TokenEvent, formatUnits, functionName, short } from './decode.js'
import type { BlockView, Flashblock, State, TxView } from './state.js'

type Child = Node | string | number | false | null | undefined
type Attrs = Record<string, string | number | boolean | undefined> & { delay?: number }

/** A DOM element: text is always set as text, never parsed as HTML (revert reasons come from contracts). */
export function h(tag: string, attrs: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue
    // Through the CSSOM: the page's CSP has no 'unsafe-inline' for style attributes.
    if (key === 'delay') el.style.animationDelay = `${value}ms`
    else el.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children) if (child !== false && child != null) el.append(typeof child === 'object' ? child : String(child))
  return el
}

const byId = (id: string) => document.getElementById(id)!

/** A dev account's index, or the short address: "#1" reads faster than 0x7099…79c8. */
function who(state: State, address: string | null) {
  if (!address) return 'create'
  const i = state.accounts.indexOf(address.toLowerCase())
  return i >= 0 ? `#${i}` : short(address)
}

function amount(state: State, value: bigint) {
  return `${formatUnits(value, state.token.decimals)} ${state.token.symbol}`
}

function describeEvent(state: State, e: TokenEvent) {
  switch (e.kind) {
    case 'Transfer':
      return `Transfer ${amount(state, e.value)} ${who(state, e.from)} → ${who(state, e.to)}`
    case 'Approval':
      return `Approval ${amount(state, e.value)} ${who(state, e.owner)} → ${who(state, e.spender)}`
    case 'AuthorizationUsed':
    case 'AuthorizationCanceled':
      return `${e.kind} ${who(state, e.authorizer)} nonce ${short(e.nonce)}`
    default:
      return `log ${short(e.topic)}`
  }
}

/** What a transaction did, in one line: its token events, else ETH moved or the selector called. */
function describeTx(state: State, tx: TxView) {
  const named = tx.events.filter((e) => e.kind !== 'other')
  if (named.length > 0) return named.map((e) => describeEvent(state, e)).join('; ')
  if (tx.input !== '0x') return `call ${functionName(tx.input)}`
  return `${formatUnits(tx.value, 18)} ETH`
}

function where(tx: TxView) {
  if (tx.removed) return 'removed by a reorg'
  if (!tx.sealed) return `pending #${tx.block}${tx.flashblock ? ` · fb ${tx.flashblock}` : ''}`
  return `block #${tx.block}${tx.flashblock ? ` · fb ${tx.flashblock}` : ''}`
}

/** The flashblock slices of a block column: each a band of transaction chips. */
function slices(state: State, flashblocks: Flashblock[], now: number) {
  return flashblocks.map((f) =>
    h(
      'div',
      { class: 'slice', 'data-flashblock': f.index, delay: -(now - f.at) },
      h('span', { class: 'fb' }, `fb ${f.index}`),
      ...f.txs.map((hash) => {
        const tx = state.txs.get(hash)
        const kind = tx?.result === 'reverted' ? 'reverted' : tx?.events.some((e) => e.kind !== 'other' && e.kind !== 'Transfer') ? 'auth' : tx?.events.length ? 'token' : 'eth'
        return h('span', { class: `chip ${kind}`, 'data-chip': hash, title: tx ? `${hash}\n${describeTx(state, tx)}` : hash })
      }),
    ),
  )
}

function blockColumn(state: State, block: BlockView, now: number) {
  const age = now - block.sealedAt
  return h(
    'div',
    {
      class: `block sealed${block.removed ? ' removed' : ''}`,
      'data-block': block.number,
      'data-hash': block.hash,
      delay: -age,
      title: block.hash,
    },
    h('div', { class: 'cup' }, ...slices(state, block.flashblocks, now)),
    h('div', { class: 'label' }, h('b', null, `#${block.number}`), ` ${block.txs.length} tx`),
    h('div', { class: 'sub' }, block.removed ? 'reorged out' : short(block.hash, 3)),
  )
}

/** The timeline: sealed blocks left to right, then the pending block filling, then the tick strip under it. */
export function renderTimeline(state: State, now: number) {
  const pending = h(
    'div',
    { class: 'block pending', 'data-testid': 'pending', 'data-number': state.pending.number },
    h('div', { class: 'cup' }, ...slices(state, state.pending.flashblocks, now)),
    h('div', { class: 'label' }, h('b', null, `#${state.pending.number}`), ` pending · ${state.pending.flashblocks.length} fb`),
    h('div', { class: 'sub' }, `${state.pending.flashblocks.reduce((n, f) => n + f.txs.length, 0)} tx pre-confirmed`),
  )
  byId('lane').replaceChildren(
    ...state.blocks.map((b) => blockColumn(state, b, now)),
    h('div', { class: 'arrow' }, '→'),
    pending,
  )
  renderTicks(state, now)
}

/**
 * The ticks of the pending block. With interval mining: one slot per
 * preconfInterval of the block time, the cursor where the node's ticker is
 * now, and the slots whose tick pre-confirmed something filled. With manual
 * mining a tick is a devnet_preconfirm: one slot per flashblock, and the next.
 */
function renderTicks(state: State, now: number) {
  const m = state.mining
  const elapsed = now - state.pending.startedAt
  if (m.type === 'interval') {
    const count = Math.max(1, Math.round(m.blockTime / m.preconfInterval))
    const cursor = Math.min(count - 1, Math.floor(elapsed / m.preconfInterval))
    const filled = new Map<number, number>()
    for (const f of state.pending.flashblocks) {
      const slot = Math.min(count - 1, Math.floor((f.at - state.pending.startedAt) / m.preconfInterval))
      filled.set(slot, (filled.get(slot) ?? 0) + f.txs.length)
    }
    byId('ticks').replaceChildren(
      ...Array.from({ length: count }, (_, i) =>
        h('span', { class: `tick${i < cursor ? ' past' : ''}${i === cursor ? ' now' : ''}${filled.has(i) ? ' hit' : ''}` }, filled.get(i) ?? ''),
      ),
      h('span', { class: 'tick seal' }, 'seal'),
    )
    byId('cadence').textContent = `a tick every ${m.preconfInterval} ms, a block every ${m.blockTime} ms`
    return
  }
  const ticks = state.pending.flashblocks.map((f) => h('span', { class: 'tick past hit' }, f.txs.length))
  byId('ticks').replaceChildren(...ticks, h('span', { class: 'tick now' }, ''), h('span', { class: 'tick seal' }, 'seal'))
  byId('cadence').textContent =
    m.type === 'auto' ? 'auto mining: each transaction is pre-confirmed and sealed at once' : 'manual mining: ticks on Pre-confirm, blocks on Seal'
}

export function renderTables(state: State) {
  const txs = [...state.txs.values()].reverse()
  byId('txs').replaceChildren(
    ...txs.map((tx) =>
      h(
        'tr',
        { 'data-tx': tx.hash, class: `${tx.removed ? 'removed' : ''} ${tx.sealed ? 'sealed' : 'preconfirmed'}` },
        h('td', { title: tx.hash }, short(tx.hash)),
        h('td', null, `${who(state, tx.from)} → ${who(state, tx.to)}`),
        h('td', null, describeTx(state, tx)),
        h('td', { class: 'where' }, where(tx)),
        h(
          'td',
          { class: `result ${tx.result}` },
          tx.result === 'reverted' ? `reverted${tx.reason ? `: ${tx.reason}` : ''}` : tx.result === 'ok' ? 'ok' : '…',
        ),
      ),
    ),
  )
  byId('events').replaceChildren(
    ...[...state.events].reverse().map((e) =>
      h(
        'li',
        { class: e.removed ? 'removed' : '', 'data-event': e.event.kind, 'data-tx': e.log.transactionHash },
        h('span', { class: 'badge' }, e.removed ? 'removed' : `#${Number.parseInt(e.log.blockNumber ?? '0x0', 16)}`),
        ' ',
        describeEvent(state, e.event),
      ),
    ),
  )
  byId('auths').replaceChildren(
    ...[...state.auths.values()].reverse().map((a) =>
      h(
        'tr',
        { 'data-auth': a.nonce, class: a.removed ? 'removed' : '' },
        h('td', null, who(state, a.authorizer)),
        h('td', { title: a.nonce }, short(a.nonce)),
        h('td', { class: a.kind === 'AuthorizationUsed' ? 'used' : 'canceled' }, a.kind === 'AuthorizationUsed' ? 'used (captured)' : 'canceled'),
        h('td', { title: a.tx }, short(a.tx)),
        h('td', null, a.removed ? 'removed by a reorg' : a.sealed ? `block #${a.block}` : `pending #${a.block}`),
      ),
    ),
  )
  const eth = (v: bigint) => formatUnits(v - (v % 10n ** 14n), 18)
  byId('accounts').replaceChildren(
    ...state.accounts.map((address, i) => {
      const b = state.balances.get(address)
      const cell = (latest: bigint | undefined, pending: bigint | undefined, fmt: (v: bigint) => string) => [
        h('td', { class: 'num' }, latest === undefined ? '…' : fmt(latest)),
        h('td', { class: `num${latest !== pending ? ' moved' : ''}` }, pending === undefined ? '…' : fmt(pending)),
      ]
      return h(
        'tr',
        { 'data-account': address },
        h('td', null, i),
        h('td', { class: 'mono' }, address),
        ...cell(b?.ethLatest, b?.ethPending, eth),
        ...cell(b?.tokenLatest, b?.tokenPending, (v) => formatUnits(v, state.token.decimals)),
      )
    }),
  )
  byId('summary').textContent = `chain ${state.chainId} · head #${state.head.number} · pending #${state.pending.number} · ${state.mining.type} mining · ${state.token.symbol} at ${short(state.token.address)}`
  byId('token-latest').textContent = `${state.token.symbol} latest`
  byId('token-pending').textContent = `${state.token.symbol} pending`
  const select = byId('snapshots') as HTMLSelectElement
  const options = state.snapshots.map((id) => h('option', { value: id }, `snapshot ${Number.parseInt(id, 16)}`))
  if (select.options.length !== options.length) {
    select.replaceChildren(...options)
    select.value = state.snapshots.at(-1) ?? ''
  }
}

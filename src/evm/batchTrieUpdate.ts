import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { syncTrieDb } from './syncTrieDb.js'
import { decodeStoredNode, encodeBranch } from './trieNodeCodec.js'
import { hexPrefix, nibbles } from './triePath.js'

/*
 * Many key changes applied to a trie at once, the way geth commits a trie:
 * the changed paths are merged, every node on them is read once, rebuilt in
 * memory, and encoded, hashed and stored once, bottom up.
 *
 * ethereumjs's put and del walk from the root and re-hash the whole path for
 * each key, so a block's state root re-encoded and re-hashed the root node
 * once per changed account, the nodes below it once per account under them,
 * and so on: for a block of transfers about a third of the node work was
 * repeated. The trie that results is the same (the trie of a set of keys is
 * unique, whatever the order of the changes), so the root and every stored
 * node are byte for byte what sequential puts and dels would give.
 * test/evm/batchTrieUpdate.test.ts compares both, and a root built from scratch.
 *
 * The walk is written once, as generators that yield each stored node they
 * need (a hash) and get its decoded items back. When the trie's database
 * answers synchronously (an in-memory one with no open checkpoint,
 * syncTrieDb.ts), the nodes are read and the new ones stored without a
 * promise: a seal's two flushes made ~250 promises per token transfer for
 * reads that were Map lookups (five async layers per node read, two per
 * write). Otherwise each node is awaited from the database, as before.
 */

const EMPTY = new Uint8Array(0)

/** A stored child: a node's hash, an inlined node (its raw items, under 32 bytes encoded), or nothing. */
type Ref = Uint8Array | unknown[]
type Leaf = { kind: 'leaf'; key: number[]; value: Uint8Array }
type Extension = { kind: 'ext'; key: number[]; child: Child }
type Branch = { kind: 'branch'; children: Child[]; value: Uint8Array | null }
type TrieNode = Leaf | Extension | Branch
/** A child during the update: unchanged (a Ref), rebuilt (a node), or gone. */
type Child = TrieNode | Ref | null

/** One change: the full nibble path of the (hashed) key and its new value, null to delete. */
type Change = { path: number[]; value: Uint8Array | null }

type TrieInternals = {
  _db: {
    get(key: Uint8Array): Promise<Uint8Array | undefined>
    batch(ops: { type: 'put'; key: Uint8Array; value: Uint8Array }[]): Promise<void>
  }
  _getDbKey(key: Uint8Array): Uint8Array
  _lock: { acquire(): Promise<void>; release(): void }
  appliedKey(key: Uint8Array): Uint8Array
  hash(data: Uint8Array): Uint8Array
  persistRoot(): Promise<void>
  EMPTY_TRIE_ROOT: Uint8Array
}

const isNode = (child: Child): child is TrieNode =>
  child !== null && !(child instanceof Uint8Array) && !Array.isArray(child)

function comparePaths(a: number[], b: number[]) {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/** A node from its raw items (17: branch, 2: leaf or extension by its hex-prefix flag). */
function fromRaw(raw: unknown[]): TrieNode {
  if (raw.length === 17) {
    const children: Child[] = new Array(16)
    for (let i = 0; i < 16; i++) {
      const c = raw[i] as Ref
      children[i] = c instanceof Uint8Array && c.length === 0 ? null : c
    }
    const value = raw[16] as Uint8Array
    return { kind: 'branch', children, value: value.length === 0 ? null : value }
  }
  if (raw.length !== 2) throw new Error('invalid trie node')
  const path = nibbles(raw[0] as Uint8Array)
  const flag = path[0]!
  const key = path.slice(flag & 1 ? 1 : 2)
  if (flag >= 2) return { kind: 'leaf', key, value: raw[1] as Uint8Array }
  const child = raw[1] as Ref
  return { kind: 'ext', key, child }
}

/** What one batch works with: the trie's database and hashing, and the nodes to store. */
type Batch = { t: TrieInternals; ops: { type: 'put'; key: Uint8Array; value: Uint8Array }[] }

/** A walk step: yields the hash of a stored node it needs, gets the node's bytes back (undefined: not stored). */
type Walk<T> = Generator<Uint8Array, T, Uint8Array | undefined>

function* load(ref: Ref): Walk<TrieNode> {
  if (Array.isArray(ref)) return fromRaw(ref)
  const bytes = yield ref
  if (!bytes) throw new Error('Missing node in DB')
  return fromRaw(decodeStoredNode(bytes))
}

/** A fresh subtrie holding `entries` (sorted, distinct, all with values), which share their first `depth` nibbles. */
function build(entries: Change[], depth: number): TrieNode | null {
  if (entries.length === 0) return null
  const first = entries[0]!
  if (entries.length === 1) return { kind: 'leaf', key: first.path.slice(depth), value: first.value! }
  const last = entries[entries.length - 1]!
  let shared = 0
  while (depth + shared < first.path.length && first.path[depth + shared] === last.path[depth + shared]) shared++
  if (shared > 0) return { kind: 'ext', key: first.path.slice(depth, depth + shared), child: build(entries, depth + shared) }
  if (first.path.length === depth) throw new Error('keys of different lengths are not supported')
  const children: Child[] = new Array(16).fill(null)
  let from = 0
  while (from < entries.length) {
    const nibble = entries[from]!.path[depth]!
    let to = from + 1
    while (to < entries.length && entries[to]!.path[depth] === nibble) to++
    children[nibble] = build(entries.slice(from, to), depth + 1)
    from = to
  }
  return { kind: 'branch', children, value: null }
}

/** `key` prepended to `child`'s path: a leaf or extension absorbs it, a branch gets an extension above it. */
function* prefixed(key: number[], child: Child): Walk<Child> {
  if (child === null || key.length === 0) return child
  const node = isNode(child) ? child : yield* load(child)
  if (node.kind === 'leaf') return { kind: 'leaf', key: [...key, ...node.key], value: node.value }
  if (node.kind === 'ext') return { kind: 'ext', key: [...key, ...node.key], child: node.child }
  return { kind: 'ext', key, child }
}

/** `child` (at `depth` nibbles) with `entries` (sorted, all under it) applied; the same object when nothing changed. */
function* update(child: Child, entries: Change[], depth: number): Walk<Child> {
  if (entries.length === 0) return child
  if (child === null) return build(entries.filter((e) => e.value !== null), depth)
  const node = isNode(child) ? child : yield* load(child)
  if (node.kind === 'leaf') {
    // A leaf's subtrie is that one key: rebuild it with the changes merged in, unless they leave it as it is (a
    // flush writes back every slot and account read, as the value read, and deletes absent slots read as zero).
    const path = [...entries[0]!.path.slice(0, depth), ...node.key]
    if (entries.every((e) => (comparePaths(e.path, path) === 0 ? e.value !== null && equalBytes(e.value, node.value) : e.value === null)))
      return child
    const merged = entries.some((e) => comparePaths(e.path, path) === 0)
      ? entries
      : [...entries, { path, value: node.value }].sort((a, b) => comparePaths(a.path, b.path))
    return build(merged.filter((e) => e.value !== null), depth)
  }
  if (node.kind === 'ext') {
    const key = node.key
    const under = (e: Change) => {
      for (let i = 0; i < key.length; i++) if (e.path[depth + i] !== key[i]) return false
      return true
    }
    // A key that leaves the extension is not in the trie: deleting it changes nothing.
    const kept = entries.filter((e) => e.value !== null || under(e))
    if (kept.length === 0) return child
    if (kept.every(under)) {
      const next = yield* update(node.child, kept, depth + key.length)
      if (next === node.child) return child
      return yield* prefixed(key, next)
    }
    // Some keys leave the extension: it becomes a branch at its first nibble.
    const children: Child[] = new Array(16).fill(null)
    children[key[0]!] = key.length > 1 ? { kind: 'ext', key: key.slice(1), child: node.child } : node.child
    return yield* updateBranch({ kind: 'branch', children, value: null }, kept, depth, false)
  }
  return yield* updateBranch(node, entries, depth, child)
}

function* updateBranch(node: Branch, entries: Change[], depth: number, original: Child | false): Walk<Child> {
  const children = node.children.slice()
  let changed = original === false
  let from = 0
  while (from < entries.length) {
    const nibble = entries[from]!.path[depth]
    if (nibble === undefined) throw new Error('keys of different lengths are not supported')
    let to = from + 1
    while (to < entries.length && entries[to]!.path[depth] === nibble) to++
    const next = yield* update(children[nibble]!, from === 0 && to === entries.length ? entries : entries.slice(from, to), depth + 1)
    if (next !== children[nibble]) {
      children[nibble] = next
      changed = true
    }
    from = to
  }
  if (!changed) return original as Child
  let only = -1
  let count = 0
  for (let i = 0; i < 16; i++)
    if (children[i] !== null) {
      count++
      only = i
    }
  if (node.value === null && count === 0) return null
  if (node.value === null && count === 1) return yield* prefixed([only], children[only]!)
  return { kind: 'branch', children, value: node.value }
}

/** Encodes `child` bottom up; nodes of 32 bytes or more (and the root) are hashed and queued for storing. */
function commit(batch: Batch, child: Child, root: boolean): Ref {
  if (child === null) return EMPTY
  if (!isNode(child)) return child
  let raw: unknown[]
  let encoded: Uint8Array | undefined
  if (child.kind === 'leaf') raw = [hexPrefix(child.key, true), child.value]
  else if (child.kind === 'ext') raw = [hexPrefix(child.key, false), commit(batch, child.child, false)]
  else {
    const refs = child.children.map((c) => commit(batch, c, false))
    raw = [...refs, child.value ?? EMPTY]
    encoded = encodeBranch(refs, child.value)
  }
  encoded ??= RLP.encode(raw as never)
  if (encoded.length < 32 && !root) return raw
  const hash = batch.t.hash(encoded)
  batch.ops.push({ type: 'put', key: batch.t._getDbKey(hash), value: encoded })
  return hash
}

/** Applies `changes` (any order; the last change of a key wins) to `trie` and returns the new root, which the trie is set to. */
export async function batchUpdate(
  trie: MerklePatriciaTrie,
  changes: readonly { key: Uint8Array; value: Uint8Array | null }[],
): Promise<Uint8Array> {
  const t = trie as unknown as TrieInternals
  if (changes.length === 0) return trie.root()
  const byPath = new Map<string, Change>()
  for (const { key, value } of changes) {
    const applied = t.appliedKey(key)
    byPath.set(Buffer.from(applied.buffer, applied.byteOffset, applied.length).toString('latin1'), {
      path: nibbles(applied),
      value: value === null || value.length === 0 ? null : value,
    })
  }
  const sorted = [...byPath.values()].sort((a, b) => comparePaths(a.path, b.path))
  const batch: Batch = { t, ops: [] }
  await t._lock.acquire()
  try {
    const current = trie.root()
    const start: Child = equalBytes(current, t.EMPTY_TRIE_ROOT) ? null : current
    const walk = update(start, sorted, 0)
    const db = syncTrieDb(t._db)
    let step = walk.next()
    if (db) while (!step.done) step = walk.next(db.get(t._getDbKey(step.value)))
    else while (!step.done) step = walk.next(await t._db.get(t._getDbKey(step.value)))
    const next = step.value
    if (next === start) return current
    const root = next === null ? t.EMPTY_TRIE_ROOT : (commit(batch, next, true) as Uint8Array)
    // (Checked again: nothing else writes this database while the lock is held, but a checkpoint could open.)
    const writer = syncTrieDb(t._db)
    if (writer) writer.putAll(batch.ops)
    else await t._db.batch(batch.ops)
    trie.root(root)
    await t.persistRoot()
    return root
  } finally {
    t._lock.release()
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array) {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

import { MerklePatriciaTrie } from '@ethereumjs/mpt'

/*
 * Copies of a trie store their nodes the way the original does.
 *
 * A MerklePatriciaTrie created without a database (the state manager's) keeps
 * its nodes as bytes, but its options still say "string", so every
 * shallowCopy (the pre-confirmed VM's state, each view, every storage trie)
 * writes its nodes into the same shared Map as hex strings: each write encodes
 * the node to hex and each later read decodes it again (about a tenth of the
 * cost of sealing a block). The copy now inherits the original database's
 * encoding. Readers accept either form (CheckpointDB.get decodes a string and
 * passes bytes through; so does fixture/state.ts), so nodes already stored as
 * hex stay readable, and the trie content, hence every root, is unchanged.
 */

type Copyable = {
  shallowCopy(includeCheckpoints?: boolean, opts?: object): MerklePatriciaTrie
  _db: { valueEncoding: unknown }
  __devnetCopyEncoding?: boolean
}

const prototype = MerklePatriciaTrie.prototype as unknown as Copyable

if (!prototype.__devnetCopyEncoding) {
  const original = prototype.shallowCopy
  prototype.shallowCopy = function (this: Copyable, includeCheckpoints = true, opts?: object) {
    return original.call(this, includeCheckpoints, { valueEncoding: this._db.valueEncoding, ...opts })
  }
  prototype.__devnetCopyEncoding = true
}

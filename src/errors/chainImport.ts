import { DevnetError } from './base.js'

/**
 * A geth genesis, RLP chain or forkchoice file that cannot be imported: the
 * message names the field or the block and what is wrong with it. A user's
 * input error, not a devnet bug: the CLI prints it in one line.
 */
export class ChainImportError extends DevnetError {
  override name = 'ChainImportError'
}

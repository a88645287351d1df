import { readFileSync } from 'node:fs'
import type { Common } from '@ethereumjs/common'
import { Address, bigIntToAddressBytes, bigIntToBytes, createAddressFromString } from '@ethereumjs/util'
import type { BlockBuilder, VM } from '@ethereumjs/vm'
import { patchActive } from './patches/registry.js'

/*
 * BlockBuilder.initState, the system writes at the start of a block: the
 * parent beacon block root into the EIP-4788 contract's two ring-buffer
 * slots, the parent hash into the EIP-2935 history contract's slot. The
 * library computes each slot key as setLengthLeft(bigIntToBytes(n), 32),
 * which pads by spreading both arrays into a new one, reads the history
 * contract's address from a parameter through bigIntToAddressBytes (another
 * padding), and after each contract's writes awaits journal.cleanup(), whose
 * only work with no touched account is to reset the journal: about 4-5 % of a
 * warm one-call eth_simulateV1 (in-process profile), every simulated and every
 * pre-confirmed block.
 */

const beaconRootsAddress = createAddressFromString('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02')
const historyAddresses = new Map<bigint, Address>()

/** The 32-byte big-endian word of `value` (0 <= value < 2^256): setLengthLeft(bigIntToBytes(value), 32)'s bytes. */
function word(value: bigint): Uint8Array {
  const out = new Uint8Array(32)
  for (let i = 31; value > 0n; i--, value >>= 8n) out[i] = Number(value & 0xffn)
  return out
}

type Journal = { touched: Set<string>; cleanJournal(): void; accessList?: unknown; preimages?: unknown }

/** journal.cleanup() of a journal with no touched account: what it does then, without its promise. */
function resetJournal(journal: Journal) {
  journal.cleanJournal()
  delete journal.accessList
  delete journal.preimages
}

/**
 * `builder.initState()`, the same writes in the same order with the same
 * journal afterwards, for a builder whose checkpoint is its caller's
 * (`checkpointed` set, as simulate and the pre-confirmed layer set it) and a
 * journal with no touched account (the library's cleanup would then delete
 * none). Anything else runs the library's initState: a builder that opens
 * its own checkpoint, touched accounts, header data given in other types,
 * EIP-7928 block access lists or EIP-7864 binary trees (which record the
 * system writes).
 */
export async function initBlockState(builder: BlockBuilder): Promise<void> {
  const internals = builder as unknown as { vm: VM; checkpointed: boolean; headerData: Record<string, unknown> }
  const { vm, headerData } = internals
  const common = vm.common
  const journal = vm.evm.journal as unknown as Journal
  const { timestamp, number, parentHash, parentBeaconBlockRoot } = headerData
  if (
    !patchActive('system-writes') ||
    !internals.checkpointed ||
    journal.touched.size > 0 ||
    common.isActivatedEIP(7928) ||
    common.isActivatedEIP(7864) ||
    typeof timestamp !== 'bigint' ||
    typeof number !== 'bigint' ||
    !(parentHash instanceof Uint8Array) ||
    !(parentBeaconBlockRoot === undefined || parentBeaconBlockRoot instanceof Uint8Array)
  )
    return builder.initState()
  const state = vm.stateManager
  if (common.isActivatedEIP(4788)) {
    const length = BigInt(common.param('historicalRootsLength'))
    const index = timestamp % length
    // A contract without code gets no writes (and the library then skips the cleanup too).
    if ((await state.getCode(beaconRootsAddress)).length > 0) {
      await state.putStorage(beaconRootsAddress, word(index), bigIntToBytes(timestamp))
      await state.putStorage(beaconRootsAddress, word(index + length), parentBeaconBlockRoot ?? new Uint8Array(32))
      resetJournal(journal)
    }
  }
  if (common.isActivatedEIP(2935)) {
    const address = historyAddressOf(common)
    if ((await state.getCode(address)).length > 0) {
      await state.putStorage(address, word((number - 1n) % common.param('historyServeWindow')), parentHash)
      resetJournal(journal)
    }
  }
}

function historyAddressOf(common: Common): Address {
  const param = common.param('historyStorageAddress')
  let address = historyAddresses.get(param)
  if (address === undefined) historyAddresses.set(param, (address = new Address(bigIntToAddressBytes(param))))
  return address
}

/**
 * The source of the library's `accumulateParentBeaconBlockRoot` and
 * `accumulateParentBlockHash` (runBlock.js, which the package does not
 * export), for the patch's fingerprint: read from the installed package, or
 * a placeholder where there is none to read (a bundle, whose library was
 * checked when it was built).
 */
export function systemWritesUpstream(): string[] {
  let text = ''
  try {
    text = readFileSync(new URL('./runBlock.js', import.meta.resolve('@ethereumjs/vm')), 'utf8')
  } catch {
    return ['<unavailable>']
  }
  return ['accumulateParentBeaconBlockRoot', 'accumulateParentBlockHash'].map((name) => {
    const start = text.indexOf(`export async function ${name}(`)
    return start < 0 ? '<missing>' : text.slice(start, text.indexOf('\n}\n', start) + 2)
  })
}

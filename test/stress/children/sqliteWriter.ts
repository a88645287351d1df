/**
 * Child of crashSqlite.test.ts: writes payment records to the SQLite store at
 * argv[2] as fast as it can, starting at order number argv[3], and prints
 * each one once its write has committed: `I <orderId>` after an insert,
 * `T <orderId>` after its move to voided, and indexer rows in batches of 10
 * (`L <first logIndex>`). The parent kills it with SIGKILL at random points.
 */
import { createSqliteStore } from '../../../src/payments/sqlite.js'
import type { Authorization } from '../../../src/payments/types.js'

const [path, startArg] = process.argv.slice(2)
const store = createSqliteStore({ path: path! })
const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const authorization = (n: number): Authorization => ({
  primaryType: 'ReceiveWithAuthorization',
  domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x0000000000000000000000000000000000000001' },
  from: '0x0000000000000000000000000000000000000002',
  to: '0x0000000000000000000000000000000000000003',
  value: 12_500_000n + BigInt(n),
  validAfter: 1_700_000_000n,
  validBefore: 1_700_000_900n,
  nonce: nonce(n),
})
const signature = `0x${'ab'.repeat(65)}` as const

// Write synchronously to the pipe: a line printed is a line the parent gets, even if SIGKILL follows at once.
const say = (line: string) => process.stdout.write(`${line}\n`)
process.stdout.write('ready\n')
for (let n = Number(startArg); ; n++) {
  const orderId = `order-${n}`
  await store.insert({ orderId, authorization: authorization(n), signature })
  say(`I ${orderId}`)
  if (n % 3 === 0) {
    await store.transition(orderId, 'voided')
    say(`T ${orderId}`)
  }
  if (n % 5 === 0) {
    const rows = Array.from({ length: 10 }, (_, i) => ({
      blockHash: `0x${n.toString(16).padStart(64, '0')}` as const,
      logIndex: i,
      blockNumber: BigInt(n),
      transactionHash: `0x${(n * 10 + i).toString(16).padStart(64, 'f')}` as const,
      event: 'AuthorizationUsed' as const,
      from: '0x0000000000000000000000000000000000000002' as const,
      nonce: nonce(n),
    }))
    await store.putLogs(rows)
    say(`L ${n}`)
  }
}

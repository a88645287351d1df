/**
 * What forgotten polling filters keep alive: installs N filters (half log
 * filters on the token, half block filters), then seals 60 blocks of 15 token
 * transfers and prints the live heap added, after a full GC.
 * `node --expose-gc --import tsx bench/filterMemory.ts 2000` (and `0` to compare).
 */
import { encodeFunctionData } from 'viem'
import { createDevnet } from '../src/index.js'
import { tokenAbi } from '../src/payments/abi.js'
const n = Number(process.argv[2] ?? 2000)
const d = await createDevnet({ mining: 'manual', clock: 'virtual', quiet: true })
const [a, b] = d.accounts
for (let i = 0; i < n; i++) await (i % 2 ? d.request({ method: 'eth_newFilter', params: [{ address: d.token.address }] }) : d.request({ method: 'eth_newBlockFilter' }))
global.gc!(); const h0 = process.memoryUsage().heapUsed
for (let blk = 0; blk < 60; blk++) {
  for (let i = 0; i < 15; i++) await d.request({ method: 'eth_sendTransaction', params: [{ from: a!.address, to: d.token.address, data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [b!.address, 1n] }) }] })
  await d.seal()
}
global.gc!(); const h1 = process.memoryUsage().heapUsed
console.log(`filters ${n}: heap +${((h1 - h0) / 1e6).toFixed(1)} MB for 900 transfers in 60 blocks`)
await d.close()

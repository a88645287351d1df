// Run by heap.test.ts in a child process (V8 flags are process-wide): applies the CLI's heap settings from the
// environment, allocates with a high survival rate so V8 grows the young generation, yielding to the event loop now
// and then as a server does, and prints the largest young generation (both semi-spaces, bytes) it saw.
import { getHeapSpaceStatistics } from 'node:v8'
import { tuneHeap } from '../../src/cli/heap.js'

tuneHeap()
const youngSize = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size
let largest = youngSize()
// A ring of recent objects: most survive one scavenge, the survival rate that makes V8 grow the space.
const ring: unknown[] = new Array(100_000)
for (let round = 0; round < 240; round++) {
  for (let i = 0; i < 5_000; i++) ring[(round * 5_000 + i) % ring.length] = { round, i, pad: [i, i + 1, i + 2] }
  largest = Math.max(largest, youngSize())
  await new Promise((resolve) => setImmediate(resolve))
}
console.log(largest)

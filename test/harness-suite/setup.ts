import { useDevnet } from 'devnet/vitest'

// The per-worker devnet and the snapshot/revert around every test of every file.
await useDevnet()

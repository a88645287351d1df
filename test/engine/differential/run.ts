/**
 * One side of the differential suite, in a process of its own (the engine
 * patches are process-wide): runs the scenario under the engine that
 * DEVNET_ENGINE selects and writes the transcript as JSON to the given file.
 *
 *   DEVNET_ENGINE=stock node --import tsx test/engine/differential/run.ts <seed> <cases> <out.json>
 */
import { writeFileSync } from 'node:fs'
import { engineMode } from '../../../src/evm/patches/registry.js'
import { runScenario } from './scenario.js'

const [seed, cases, out] = process.argv.slice(2)
if (seed === undefined || cases === undefined || out === undefined) throw new Error('usage: run.ts <seed> <cases> <out.json>')
const transcript = await runScenario(Number(seed), Number(cases), engineMode())
writeFileSync(out, JSON.stringify(transcript))

// `devnet` from source (bin/devnet.js with DEVNET_FROM_SOURCE=1, or no dist/): the whole CLI in one step.
import { runCli } from './run.js'

runCli(process.argv.slice(2))

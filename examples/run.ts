/**
 * `npm run example -- <name>` runs `examples/<name>.ts`; `npm run example`
 * alone runs the checkout example. An unknown name lists the examples there
 * are, read from this folder, and exits 2.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const folder = fileURLToPath(new URL('.', import.meta.url))
const available = readdirSync(folder)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.slice(0, -'.ts'.length))
  .sort()

const name = (process.argv[2] ?? 'checkout').replace(/\.ts$/, '')
if (!available.includes(name)) {
  console.error(`Unknown example "${name}". Available: ${available.join(', ')}`)
  console.error('Run one with: npm run example -- <name>')
  process.exit(2)
}
await import(pathToFileURL(`${folder}${name}.ts`).href)

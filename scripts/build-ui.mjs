#!/usr/bin/env node
/**
 * Builds the live page (src/ui/page/: index.html, style.css and main.ts with
 * what it imports) into dist/ui/page/, the files an installed devnet serves
 * on GET /. Runs in `npm run build` and `prepare`, after tsc, through the
 * same esbuild call the server makes when it runs from source
 * (dist/ui/assets.js `buildPage`), so the two never differ.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { buildPage } = await import(pathToFileURL(join(root, 'dist', 'ui', 'assets.js')).href)
const page = await buildPage(pathToFileURL(join(root, 'src', 'ui', 'page') + '/'))
const out = join(root, 'dist', 'ui', 'page')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'index.html'), page.html)
writeFileSync(join(out, 'style.css'), page.style)
writeFileSync(join(out, 'app.js'), page.script)
const size = Buffer.byteLength(page.html) + Buffer.byteLength(page.style) + Buffer.byteLength(page.script)
console.log(`ui: ${relative(root, out)}/ (index.html, style.css, app.js), ${(size / 1024).toFixed(0)} KiB`)
